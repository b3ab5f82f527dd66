"""What the game draws: material lists (wear), textures (texm), materials (mat0) and their animation
tracks (material_tracks), and the chain from a batch to its texture with the libraries that hold them
(resolve), materials-texm.md."""
