"""Maps and missions (docs/format-notes.md, "Maps and missions"): Land.msh, Land.map, Land1/Land2.wea, data.tma."""
