"""Maps and missions (docs/formats/maps.md): Land.msh, Land.map, Land1/Land2.wea, data.tma."""
