"""Which launch arguments the run left in L2 (``recently_touched``), as the repro's ``flow``
method rebuilds them: read from the output code of a recorded H200 report. No torch."""

from __future__ import annotations

import json
from pathlib import Path

from inspectc.model.launch_args import recently_touched
from inspectc.render.repro import render_script, spec_for
from inspectc.store.reader import Report

H200 = Path(__file__).parent / "data" / "bench" / "resnet18-h200.inspectc"

CALL = """
def call(args):
    buf18 = extern_kernels.convolution(buf16, buf17, stride=(2, 2), bias=None)
    # [Provenance debug handles] extern_kernels.convolution:19 buf5
    del buf17
    buf19 = buf18; del buf18  # reuse
    stream0 = get_raw_stream(0)
    triton_poi_fused_relu_8.run(buf19, arg27_1, buf5, reinterpret_tensor(buf16, (8, 4), (4, 1), 0), 147456, stream=stream0)
"""


def test_a_producers_output_is_hot_through_a_reuse_and_comments_name_nothing() -> None:
    assert recently_touched(CALL, "triton_poi_fused_relu_8") == [True, False, False, True, False]
    assert recently_touched(CALL, "triton_poi_fused_relu_8", window=0) == [False] * 5
    assert recently_touched(CALL, "triton_other") is None and recently_touched("x = 1", "k") is None


def test_on_a_recorded_h200_report_the_conv_output_is_hot_and_the_weights_are_not() -> None:
    report = Report(H200)
    by_name = {k.name: k for k in report.kernels if k.language == "triton"}
    bn = by_name["triton_poi_fused__native_batch_norm_legit_no_training_relu_2"]  # right after a conv
    weights = by_name["triton_poi_fused_convolution_0"]  # a weight-layout copy: the module's input
    for kernel, hot in ((bn, [True, False, False, False, False, False]), (weights, [False] * 4)):
        spec = spec_for(report, kernel)
        assert spec.hot == tuple(hot) and len(spec.hot) == len(spec.launch.args)
        script = render_script(spec, report_name="r.inspectc", compile_id=kernel.compile_id)
        start = script.index('SPEC = json.loads(r"""') + len('SPEC = json.loads(r"""')
        data = json.loads(script[start : script.index('""")', start)])
        assert data["hot"] == hot
