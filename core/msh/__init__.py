"""The MSH model's streams: the model as numpy views (model, streams), node names (labels), and the
structural checks (validate), msh-core.md."""
