"""A valid ONNX model small enough to build in a test, with a weights file of its own."""

from __future__ import annotations

from typing import Any

import numpy as np


def tiny_model(fill: float = 1.0) -> Any:
    """A valid ONNX model (y = x + w) whose 4 kB weight goes to the weights file."""
    from onnx import TensorProto, helper, numpy_helper

    weight = numpy_helper.from_array(np.full((1024,), fill, dtype=np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"])],
        "tiny",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1024])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1024])],
        [weight],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
