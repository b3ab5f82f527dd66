"""Import planning of a model's effects, in plain Python: each controller record that attaches an effect (on a
node, on three control points, at a building's construction sphere) or explodes a node becomes an Empty's plan,
with the effect's parameters when effects.rlb (or the archive the record names) is found next to the model, in
its parent folders or in the game folders (core.effects.scene)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ...core.appearance.resolve import Libraries, find_libraries
from ...core.effects.attach import ON_NODE
from ...core.effects.preview import sprite_preview, sprite_textures
from ...core.effects.scene import PlacedEffect, nearby_loader, placed_effects
from ...core.errors import FormatError, printable
from ...core.model_controller import locate_controller


@dataclass
class EffectPlan:
    name: str                        # the Empty's name: the member the record names
    reference: str                   # 'archive/member'
    place: str                       # 'node', 'points', 'sphere' or 'explode'
    record: tuple[int, int]          # (group, record) in the controller's section 5
    node: int | None = None          # the model node the Empty sits at (None: at the model's root)
    values: dict = field(default_factory=dict)  # node, points, effect id, start mode, time node as read
    params: dict | None = None       # the effect's (or explosion's) parameters; None when not found
    problem: str = ""
    file: str = ""                   # the archive file the effect (or explosion) was found in
    textures: dict = field(default_factory=dict)  # a sprite's material name -> its TextureRef (previews)

    @property
    def params_text(self) -> str:
        return json.dumps(self.params, sort_keys=True) if self.params is not None else ""


def plan_effects(container, entry, node_count: int, game_folders: tuple[str, ...] = ()
                 ) -> tuple[list[EffectPlan], list[str]]:
    """The effects the model's controller attaches, and warnings (a record naming a node the model lacks)."""
    found = locate_controller(container, entry)
    if found is None:
        return [], []
    try:
        placed = placed_effects(found.data, found.source, nearby_loader(container.path, list(game_folders)))
    except FormatError:  # the controller does not read: the clips' planning says why
        return [], []
    plans, warnings = [], []
    for effect in placed:
        plan = _plan(effect)
        if plan.node is not None and not 0 <= plan.node < node_count:
            warnings.append(f"{printable(found.source)}: group {plan.record[0]} record {plan.record[1]} puts "
                            f"{plan.reference} on node {plan.node}, which the model lacks ({node_count} nodes); "
                            "it is shown at the model's root")
            plan.node = None
        plans.append(plan)
    _sprite_textures(plans, container.path, game_folders)
    return plans, warnings


def _sprite_textures(plans: list[EffectPlan], path: str, game_folders: tuple[str, ...]) -> None:
    """The textures the sprites' previews show (io_msh.imp.effect_previews), found as the model's materials are."""
    names = {sprite.material for plan in plans if plan.params and "blocks" in plan.params
             for block in plan.params["blocks"] if (sprite := sprite_preview(plan.params, block)) is not None}
    if not names:
        return
    found = sprite_textures(names, Libraries(find_libraries(path, list(game_folders))))
    for plan in plans:
        plan.textures = found


def _plan(effect: PlacedEffect) -> EffectPlan:
    a = effect.attachment
    summary = a.summary()
    values = {k: summary[k] for k in ("node", "points", "effect_id", "start_mode", "time_node") if k in summary}
    on_node = a.action == ON_NODE or a.place == "explode"
    return EffectPlan(a.member or a.archive or "effect", effect.reference, a.place, (a.group, a.record),
                      a.node if on_node else None, values, effect.params, effect.problem, effect.file)
