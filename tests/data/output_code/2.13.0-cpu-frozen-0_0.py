# AOT ID: ['0_inference']
from ctypes import c_void_p, c_long, c_int
import torch
import math
import random
import os
import tempfile
from math import inf, nan
from cmath import nanj
from torch._inductor.hooks import run_intermediate_hooks
from torch._inductor.utils import maybe_profile
from torch._inductor.codegen.memory_planning import _align as align
from torch import device, empty_strided
from torch._inductor.async_compile import AsyncCompile
from torch._inductor.select_algorithm import extern_kernels

aten = torch.ops.aten
inductor_ops = torch.ops.inductor
_quantized = torch.ops._quantized
assert_size_stride = torch._C._dynamo.guards.assert_size_stride
assert_alignment = torch._C._dynamo.guards.assert_alignment
empty_strided_cpu = torch._C._dynamo.guards._empty_strided_cpu
empty_strided_cpu_pinned = torch._C._dynamo.guards._empty_strided_cpu_pinned
empty_strided_cuda = torch._C._dynamo.guards._empty_strided_cuda
empty_strided_xpu = torch._C._dynamo.guards._empty_strided_xpu
empty_strided_mtia = torch._C._dynamo.guards._empty_strided_mtia
reinterpret_tensor = torch._C._dynamo.guards._reinterpret_tensor
alloc_from_pool = torch.ops.inductor._alloc_from_pool
async_compile = AsyncCompile()
empty_strided_p2p = torch._C._distributed_c10d._SymmetricMemory.empty_strided_p2p
_frozen_param1 = None  # device(type='cpu') torch.float32 (32,) (1,) 7f5b56a8d0e0
_frozen_param6 = None  # device(type='cpu') torch.float32 (32, 16) (16, 1) 7f5b537d69e0
_frozen_param7 = None  # device(type='cpu') torch.float32 (1459233, 1) (1, 0) 7f5b535b38e0
_frozen_param8 = None  # device(type='cpu') torch.float32 (8, 32) (32, 1) 7f5b535b0870
_frozen_param9 = None  # device(type='cpu') torch.float32 (1459233, 1) (1, 0) 7f5b5380a990


cpp_fused_addmm_gelu_0 = async_compile.cpp_pybinding(['float*', 'const float*'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(float* in_out_ptr0,
                       const float* in_ptr0)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    {
        #pragma GCC ivdep
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(4L); x0+=static_cast<int64_t>(1L))
        {
            for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(32L); x1+=static_cast<int64_t>(16L))
            {
                {
                    if(C10_LIKELY(x1 >= static_cast<int64_t>(0) && x1 < static_cast<int64_t>(32L)))
                    {
                        auto tmp0 = at::vec::Vectorized<float>::loadu(in_out_ptr0 + static_cast<int64_t>(x1 + 32L*x0), static_cast<int64_t>(16));
                        auto tmp1 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x1), static_cast<int64_t>(16));
                        auto tmp2 = tmp0 + tmp1;
                        auto tmp3 = static_cast<float>(0.5);
                        auto tmp4 = at::vec::Vectorized<float>(tmp3);
                        auto tmp5 = tmp2 * tmp4;
                        auto tmp6 = static_cast<float>(0.7071067811865476);
                        auto tmp7 = at::vec::Vectorized<float>(tmp6);
                        auto tmp8 = tmp2 * tmp7;
                        auto tmp9 = tmp8.erf();
                        auto tmp10 = static_cast<float>(1.0);
                        auto tmp11 = at::vec::Vectorized<float>(tmp10);
                        auto tmp12 = tmp9 + tmp11;
                        auto tmp13 = tmp5 * tmp12;
                        tmp13.store(in_out_ptr0 + static_cast<int64_t>(x1 + 32L*x0));
                    }
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}
''')


cpp_fused_addmm_gelu_1 = async_compile.cpp_pybinding(['float*'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(float* in_out_ptr0)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    {
        #pragma GCC ivdep
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(4L); x0+=static_cast<int64_t>(1L))
        {
            for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(8L); x1+=static_cast<int64_t>(16L))
            {
                {
                    if(C10_LIKELY(x1 >= static_cast<int64_t>(0L) && x1 < static_cast<int64_t>(1)))
                    {
                        for (int64_t x1_tail = static_cast<int64_t>(0L);x1_tail < static_cast<int64_t>(8L); x1_tail++)
                        {
                            auto tmp0 = in_out_ptr0[static_cast<int64_t>(x1_tail + 8L*x0)];
                            auto tmp1 = x1_tail;
                            auto tmp2 = c10::convert<int64_t>(tmp1);
                            auto tmp3 = static_cast<int64_t>(4);
                            auto tmp4 = tmp2 < tmp3;
                            auto tmp5 = static_cast<int64_t>(2);
                            auto tmp6 = tmp2 < tmp5;
                            auto tmp7 = static_cast<int64_t>(1);
                            auto tmp8 = tmp2 < tmp7;
                            auto tmp9 = static_cast<float>(0.07864131778478622);
                            auto tmp10 = static_cast<float>(-0.07556086778640747);
                            auto tmp11 = tmp8 ? tmp9 : tmp10;
                            auto tmp12 = static_cast<int64_t>(3);
                            auto tmp13 = tmp2 < tmp12;
                            auto tmp14 = static_cast<float>(0.1409270316362381);
                            auto tmp15 = static_cast<float>(-0.12404070049524307);
                            auto tmp16 = tmp13 ? tmp14 : tmp15;
                            auto tmp17 = tmp6 ? tmp11 : tmp16;
                            auto tmp18 = static_cast<int64_t>(6);
                            auto tmp19 = tmp2 < tmp18;
                            auto tmp20 = static_cast<int64_t>(5);
                            auto tmp21 = tmp2 < tmp20;
                            auto tmp22 = static_cast<float>(0.0005024325801059604);
                            auto tmp23 = static_cast<float>(0.15890809893608093);
                            auto tmp24 = tmp21 ? tmp22 : tmp23;
                            auto tmp25 = static_cast<int64_t>(7);
                            auto tmp26 = tmp2 < tmp25;
                            auto tmp27 = static_cast<float>(0.17578411102294922);
                            auto tmp28 = static_cast<float>(-0.10240006446838379);
                            auto tmp29 = tmp26 ? tmp27 : tmp28;
                            auto tmp30 = tmp19 ? tmp24 : tmp29;
                            auto tmp31 = tmp4 ? tmp17 : tmp30;
                            auto tmp32 = float(tmp0 + tmp31);
                            in_out_ptr0[static_cast<int64_t>(x1_tail + 8L*x0)] = tmp32;
                        }
                    }
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}
''')


async_compile.wait(globals())
del async_compile

class Runner:
    def __init__(self, partitions):
        self.partitions = partitions

    def recursively_apply_fns(self, fns):
        new_callables = []
        for fn, c in zip(fns, self.partitions):
            new_callables.append(fn(c))
        self.partitions = new_callables

    def call(self, args):
        arg4_1, = args
        args.clear()
        assert_size_stride(arg4_1, (4, 16), (16, 1), 'input')
        # Topologically Sorted Source Nodes: [input_1], Original ATen: [aten.addmm]
        buf0 = torch.ops.mkl._mkl_linear.default(arg4_1, _frozen_param7, _frozen_param6, None, 4)
        assert_size_stride(buf0, (4, 32), (32, 1), 'torch.ops.mkl._mkl_linear')
        del arg4_1
        buf1 = buf0; del buf0  # reuse
        cpp_fused_addmm_gelu_0(buf1, _frozen_param1)
        # Topologically Sorted Source Nodes: [input_1, input_2, input_3], Original ATen: [aten.addmm, aten.gelu]
        buf2 = torch.ops.mkl._mkl_linear.default(buf1, _frozen_param9, _frozen_param8, None, 4)
        assert_size_stride(buf2, (4, 8), (8, 1), 'torch.ops.mkl._mkl_linear')
        del buf1
        buf3 = buf2; del buf2  # reuse
        cpp_fused_addmm_gelu_1(buf3)
        return (buf3, )

runner = Runner(partitions=[])
call = runner.call
recursively_apply_fns = runner.recursively_apply_fns


def get_args():
    from torch._dynamo.testing import rand_strided
    global _frozen_param1
    _frozen_param1 = rand_strided((32, ), (1, ), device='cpu', dtype=torch.float32)
    global _frozen_param6
    _frozen_param6 = rand_strided((32, 16), (16, 1), device='cpu', dtype=torch.float32)
    global _frozen_param7
    _frozen_param7 = rand_strided((1459233, 1), (1, 0), device='cpu', dtype=torch.float32)
    global _frozen_param8
    _frozen_param8 = rand_strided((8, 32), (32, 1), device='cpu', dtype=torch.float32)
    global _frozen_param9
    _frozen_param9 = rand_strided((1459233, 1), (1, 0), device='cpu', dtype=torch.float32)
    arg4_1 = rand_strided((4, 16), (16, 1), device='cpu', dtype=torch.float32)
    return [arg4_1]


def benchmark_compiled_module(args, times=10, repeat=10):
    from torch._inductor.utils import print_performance
    fn = lambda: call(list(args))
    return print_performance(fn, times=times, repeat=repeat, device='cpu')


if __name__ == "__main__":
    from torch._inductor.wrapper_benchmark import compiled_module_main
    args = get_args()
    compiled_module_main('None', lambda times, repeat: benchmark_compiled_module(args, times=times, repeat=repeat))
