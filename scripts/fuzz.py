"""Coverage-guided fuzzing (atheris) of the NRes reader, the MSH reader and validator, and the sampler.

    .venv/bin/python scripts/fuzz.py TARGET [--seconds N] [extra libFuzzer flags]
    TARGET: nres | model | sampler

Seeds come from generated models (core.authoring.synth and the test fixtures). An input
that breaks the contract (any exception but FormatError, a lossy rewrite, more
than 1 s, a single allocation over 64 MB) is saved under
tests/fuzz_corpus/TARGET/, where tests/test_fuzz_corpus.py replays it forever.
After a long run, ``--merge WORKING_CORPUS`` keeps the inputs that add coverage
there too, so the suite replays what the fuzzer learnt.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import atheris
import numpy  # noqa: F401  (imported before instrumentation: only the project's own code is instrumented)

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

with atheris.instrument_imports():
    import fuzz_targets

    import core  # noqa: F401


def write_seeds(folder: Path, target: str) -> None:
    from fixtures import generated, non_canonical, static_model, triangle_model

    from core.authoring.build import build_model
    from core.authoring.synth import sample_archive, sample_model

    sample = build_model(sample_model()).to_bytes()
    seeds = [sample, sample_archive(sample).to_bytes(), generated(1, node_count=4, frame_count=9),
             non_canonical(generated(2, node_count=3, frame_count=7, fractional=True)), static_model(2),
             triangle_model(bytes(24), [(0, 0, 0, 0, 32767, 0, 0, 0)], [], 1, node_stride=24)]
    times = b"\x00\x00\x00\x00\x00\x00\x00\x3f\x00\x00\x80\x3f\x00\x00\x20\x40"  # 0, 0.5, 1, 2.5
    if target == "rsli":  # RsLi archives of both shipped shapes (LZSS members, Deflate members)
        from core.authoring.rsli import rsli_files

        seeds = list(rsli_files().values())
    for i, seed in enumerate(seeds):
        (folder / f"seed{i}").write_bytes(times + seed if target == "sampler" else seed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("target", choices=sorted(fuzz_targets.TARGETS))
    parser.add_argument("--seconds", type=int, default=60)
    parser.add_argument("--merge", nargs="+", metavar="DIR",
                        help="instead of fuzzing: keep the inputs of these corpus folders that add coverage, "
                             "in tests/fuzz_corpus/TARGET/ (replayed by the tests)")
    parser.add_argument("--libfuzzer-child", action="store_true", help=argparse.SUPPRESS)
    args, extra = parser.parse_known_args()
    saved = ROOT / "tests" / "fuzz_corpus" / args.target
    saved.mkdir(parents=True, exist_ok=True)
    body = fuzz_targets.TARGETS[args.target]
    # libFuzzer re-runs argv[0] through the shell for a merge: make that run this script again.
    this = f"{sys.executable} {Path(__file__).resolve()} {args.target} --libfuzzer-child"
    if args.libfuzzer_child:
        flags = [this, *extra]
    elif args.merge:
        flags = [this, "-merge=1", "-timeout=1", "-rss_limit_mb=16384", str(saved), *args.merge]
    else:
        corpus = Path(tempfile.mkdtemp(prefix=f"io_msh_fuzz_{args.target}_"))
        write_seeds(corpus, args.target)
        print(f"fuzz: working corpus {corpus}", flush=True)
        flags = [sys.argv[0], str(corpus), f"-max_total_time={args.seconds}", "-timeout=1", "-malloc_limit_mb=64",
                 "-rss_limit_mb=16384", "-max_len=65536", f"-artifact_prefix={saved}/", "-print_final_stats=1",
                 *extra]
    atheris.Setup(flags, body)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
