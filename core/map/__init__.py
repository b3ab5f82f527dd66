"""Maps and missions (shared/spec/terrain-missions-digest.md): Land.msh, Land.map, Land1/Land2.wea, data.tma."""
