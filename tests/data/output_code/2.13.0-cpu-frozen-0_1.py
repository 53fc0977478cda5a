# AOT ID: ['1_inference']
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
_frozen_param4 = None  # device(type='cpu') torch.float32 (8, 3, 3, 3) (27, 1, 9, 3) 7f5b50a47e30
_frozen_param5 = None  # device(type='cpu') torch.float32 (4, 8, 3, 3) (72, 1, 24, 8) 7f5b50a47a70


cpp_fused_relu_0 = async_compile.cpp_pybinding(['const float*', 'float*', 'float*', 'const int64_t', 'const int64_t', 'const int64_t'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(const float* in_ptr0,
                       float* out_ptr0,
                       float* out_ptr1,
                       const int64_t ks0,
                       const int64_t ks1,
                       const int64_t ks2)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    {
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(8L); x0+=static_cast<int64_t>(16L))
        {
            {
                if(C10_LIKELY(x0 >= static_cast<int64_t>(0L) && x0 < static_cast<int64_t>(8L)))
                {
                    for (int64_t x0_tail = static_cast<int64_t>(0L);x0_tail < static_cast<int64_t>(8L); x0_tail++)
                    {
                        auto tmp0 = x0_tail;
                        auto tmp1 = c10::convert<int64_t>(tmp0);
                        auto tmp2 = static_cast<int64_t>(4);
                        auto tmp3 = tmp1 < tmp2;
                        auto tmp4 = static_cast<int64_t>(2);
                        auto tmp5 = tmp1 < tmp4;
                        auto tmp6 = static_cast<int64_t>(1);
                        auto tmp7 = tmp1 < tmp6;
                        auto tmp8 = static_cast<float>(-0.01348420325666666);
                        auto tmp9 = static_cast<float>(-0.18176884949207306);
                        auto tmp10 = tmp7 ? tmp8 : tmp9;
                        auto tmp11 = static_cast<int64_t>(3);
                        auto tmp12 = tmp1 < tmp11;
                        auto tmp13 = static_cast<float>(-0.1109638437628746);
                        auto tmp14 = static_cast<float>(0.0780448317527771);
                        auto tmp15 = tmp12 ? tmp13 : tmp14;
                        auto tmp16 = tmp5 ? tmp10 : tmp15;
                        auto tmp17 = static_cast<int64_t>(6);
                        auto tmp18 = tmp1 < tmp17;
                        auto tmp19 = static_cast<int64_t>(5);
                        auto tmp20 = tmp1 < tmp19;
                        auto tmp21 = static_cast<float>(-0.06527439504861832);
                        auto tmp22 = static_cast<float>(0.13283464312553406);
                        auto tmp23 = tmp20 ? tmp21 : tmp22;
                        auto tmp24 = static_cast<int64_t>(7);
                        auto tmp25 = tmp1 < tmp24;
                        auto tmp26 = static_cast<float>(0.15213946998119354);
                        auto tmp27 = static_cast<float>(0.027995696291327477);
                        auto tmp28 = tmp25 ? tmp26 : tmp27;
                        auto tmp29 = tmp18 ? tmp23 : tmp28;
                        auto tmp30 = tmp3 ? tmp16 : tmp29;
                        out_ptr0[static_cast<int64_t>(x0_tail)] = tmp30;
                    }
                }
            }
        }
    }
    #pragma omp parallel
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(ks0); x0+=static_cast<int64_t>(1L))
            {
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(3L); x1+=static_cast<int64_t>(16L))
                {
                    for(int64_t x2=static_cast<int64_t>(0L); x2<static_cast<int64_t>(ks1*ks2); x2+=static_cast<int64_t>(16L))
                    {
                        {
                            if(C10_LIKELY(x1 >= static_cast<int64_t>(0L) && x1 < static_cast<int64_t>(3L) && x2 >= static_cast<int64_t>(0) && x2 < static_cast<int64_t>(16L*(c10::div_floor_integer(static_cast<int64_t>(ks1*ks2), static_cast<int64_t>(16L))))))
                            {
                                alignas(std::max(std::size_t(16), alignof(float))) float tmp1[16*16];
                                for (long x1_inner = 0; x1_inner < static_cast<int64_t>(3L); x1_inner++)
                                {
                                    auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x2 + ks1*ks2*x1 + ks1*ks2*x1_inner + 3L*ks1*ks2*x0), static_cast<int64_t>(16));
                                    tmp0.store(tmp1 + static_cast<int64_t>(16L*x1_inner));
                                }
                                transpose_mxn<float,static_cast<int64_t>(3L),static_cast<int64_t>(16),false>(tmp1, static_cast<int64_t>(16), out_ptr1 + static_cast<int64_t>(x1 + 3L*x2 + 3L*ks1*ks2*x0), static_cast<int64_t>(3L));
                            }
                            if(C10_UNLIKELY(x1 >= static_cast<int64_t>(0L) && x1 < static_cast<int64_t>(3L) && x2 >= static_cast<int64_t>(16L*(c10::div_floor_integer(static_cast<int64_t>(ks1*ks2), static_cast<int64_t>(16L)))) && x2 < static_cast<int64_t>(ks1*ks2)))
                            {
                                alignas(std::max(std::size_t(16), alignof(float))) float tmp1[16*16];
                                for (long x1_inner = 0; x1_inner < static_cast<int64_t>(3L); x1_inner++)
                                {
                                    auto tmp0 = at::vec::Vectorized<float>::loadu(in_ptr0 + static_cast<int64_t>(x2 + ks1*ks2*x1 + ks1*ks2*x1_inner + 3L*ks1*ks2*x0), static_cast<int64_t>((-16L)*(c10::div_floor_integer(static_cast<int64_t>(ks1*ks2), static_cast<int64_t>(16L))) + ks1*ks2));
                                    tmp0.store(tmp1 + static_cast<int64_t>((-16L)*x1_inner*(c10::div_floor_integer(static_cast<int64_t>(ks1*ks2), static_cast<int64_t>(16L))) + ks1*ks2*x1_inner), static_cast<int64_t>((-16L)*(c10::div_floor_integer(static_cast<int64_t>(ks1*ks2), static_cast<int64_t>(16L))) + ks1*ks2));
                                }
                                transpose_mxn<float,false>(tmp1, static_cast<int64_t>((-16L)*(c10::div_floor_integer(static_cast<int64_t>(ks1*ks2), static_cast<int64_t>(16L))) + ks1*ks2), out_ptr1 + static_cast<int64_t>(x1 + 3L*x2 + 3L*ks1*ks2*x0), static_cast<int64_t>(3L), static_cast<int64_t>(3L), static_cast<int64_t>((-16L)*(c10::div_floor_integer(static_cast<int64_t>(ks1*ks2), static_cast<int64_t>(16L))) + ks1*ks2));
                            }
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


cpp_fused_1 = async_compile.cpp_pybinding(['float*'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(float* out_ptr0)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    {
        for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(4L); x0+=static_cast<int64_t>(16L))
        {
            {
                if(C10_LIKELY(x0 >= static_cast<int64_t>(0L) && x0 < static_cast<int64_t>(4L)))
                {
                    for (int64_t x0_tail = static_cast<int64_t>(0L);x0_tail < static_cast<int64_t>(4L); x0_tail++)
                    {
                        auto tmp0 = x0_tail;
                        auto tmp1 = c10::convert<int64_t>(tmp0);
                        auto tmp2 = static_cast<int64_t>(2);
                        auto tmp3 = tmp1 < tmp2;
                        auto tmp4 = static_cast<int64_t>(1);
                        auto tmp5 = tmp1 < tmp4;
                        auto tmp6 = static_cast<float>(-0.0073475586250424385);
                        auto tmp7 = static_cast<float>(0.02106686308979988);
                        auto tmp8 = tmp5 ? tmp6 : tmp7;
                        auto tmp9 = static_cast<int64_t>(3);
                        auto tmp10 = tmp1 < tmp9;
                        auto tmp11 = static_cast<float>(-0.017918311059474945);
                        auto tmp12 = static_cast<float>(-0.08237381279468536);
                        auto tmp13 = tmp10 ? tmp11 : tmp12;
                        auto tmp14 = tmp3 ? tmp8 : tmp13;
                        out_ptr0[static_cast<int64_t>(x0_tail)] = tmp14;
                    }
                }
            }
        }
    }
    inductor_cpu_integer_div_error_flag = nullptr;
    inductor_cpu_throw_if_integer_div_error(inductor_cpu_integer_div_error);
}
''')


cpp_fused_2 = async_compile.cpp_pybinding(['const float*', 'float*', 'const int64_t', 'const int64_t', 'const int64_t'], r'''
#include <torch/csrc/inductor/cpp_prefix.h>
extern "C"  void  kernel(const float* in_ptr0,
                       float* out_ptr0,
                       const int64_t ks0,
                       const int64_t ks1,
                       const int64_t ks2)
{
    std::atomic<int> inductor_cpu_integer_div_error{0};
    inductor_cpu_integer_div_error_flag = &inductor_cpu_integer_div_error;
    #pragma omp parallel
    {
        int tid = omp_get_thread_num();
        {
            #pragma omp for
            for(int64_t x0=static_cast<int64_t>(0L); x0<static_cast<int64_t>(ks0); x0+=static_cast<int64_t>(1L))
            {
                for(int64_t x1=static_cast<int64_t>(0L); x1<static_cast<int64_t>(4L); x1+=static_cast<int64_t>(16L))
                {
                    for(int64_t x2=static_cast<int64_t>(0L); x2<static_cast<int64_t>(16L + ((-4L)*ks1) + ((-4L)*ks2) + ks1*ks2); x2+=static_cast<int64_t>(16L))
                    {
                        {
                            if(C10_LIKELY(x1 >= static_cast<int64_t>(0L) && x1 < static_cast<int64_t>(4L) && x2 >= static_cast<int64_t>(0) && x2 < static_cast<int64_t>(16L + 16L*(c10::div_floor_integer(static_cast<int64_t>(((-4L)*ks1) + ((-4L)*ks2) + ks1*ks2), static_cast<int64_t>(16L))))))
                            {
                                alignas(std::max(std::size_t(16), alignof(float))) float tmp0[16*16];
                                transpose_mxn<float,static_cast<int64_t>(16),static_cast<int64_t>(4L),false>(in_ptr0 + static_cast<int64_t>(x1 + 4L*x2 + 64L*x0 + ((-16L)*ks1*x0) + ((-16L)*ks2*x0) + 4L*ks1*ks2*x0), static_cast<int64_t>(4L), tmp0, static_cast<int64_t>(16));
                                for (long x1_inner = 0; x1_inner < static_cast<int64_t>(4L); x1_inner++)
                                {
                                    auto tmp1 = at::vec::Vectorized<float>::loadu(tmp0 + static_cast<int64_t>(16L*x1_inner), static_cast<int64_t>(16));
                                    tmp1.store(out_ptr0 + static_cast<int64_t>(x2 + 16L*x1 + 16L*x1_inner + 64L*x0 + ((-16L)*ks1*x0) + ((-16L)*ks2*x0) + ((-4L)*ks1*x1) + ((-4L)*ks1*x1_inner) + ((-4L)*ks2*x1) + ((-4L)*ks2*x1_inner) + ks1*ks2*x1 + ks1*ks2*x1_inner + 4L*ks1*ks2*x0));
                                }
                            }
                            if(C10_UNLIKELY(x1 >= static_cast<int64_t>(0L) && x1 < static_cast<int64_t>(4L) && x2 >= static_cast<int64_t>(16L + 16L*(c10::div_floor_integer(static_cast<int64_t>(((-4L)*ks1) + ((-4L)*ks2) + ks1*ks2), static_cast<int64_t>(16L)))) && x2 < static_cast<int64_t>(16L + ((-4L)*ks1) + ((-4L)*ks2) + ks1*ks2)))
                            {
                                alignas(std::max(std::size_t(16), alignof(float))) float tmp0[16*16];
                                transpose_mxn<float,false>(in_ptr0 + static_cast<int64_t>(x1 + 4L*x2 + 64L*x0 + ((-16L)*ks1*x0) + ((-16L)*ks2*x0) + 4L*ks1*ks2*x0), static_cast<int64_t>(4L), tmp0, static_cast<int64_t>((-16L)*(c10::div_floor_integer(static_cast<int64_t>(((-4L)*ks1) + ((-4L)*ks2) + ks1*ks2), static_cast<int64_t>(16L))) + ((-4L)*ks1) + ((-4L)*ks2) + ks1*ks2), static_cast<int64_t>((-16L)*(c10::div_floor_integer(static_cast<int64_t>(((-4L)*ks1) + ((-4L)*ks2) + ks1*ks2), static_cast<int64_t>(16L))) + ((-4L)*ks1) + ((-4L)*ks2) + ks1*ks2), static_cast<int64_t>(4L));
                                for (long x1_inner = 0; x1_inner < static_cast<int64_t>(4L); x1_inner++)
                                {
                                    auto tmp1 = at::vec::Vectorized<float>::loadu(tmp0 + static_cast<int64_t>((-16L)*x1_inner*(c10::div_floor_integer(static_cast<int64_t>(((-4L)*ks1) + ((-4L)*ks2) + ks1*ks2), static_cast<int64_t>(16L))) + ((-4L)*ks1*x1_inner) + ((-4L)*ks2*x1_inner) + ks1*ks2*x1_inner), static_cast<int64_t>((-16L)*(c10::div_floor_integer(static_cast<int64_t>(((-4L)*ks1) + ((-4L)*ks2) + ks1*ks2), static_cast<int64_t>(16L))) + ((-4L)*ks1) + ((-4L)*ks2) + ks1*ks2));
                                    tmp1.store(out_ptr0 + static_cast<int64_t>(x2 + 16L*x1 + 16L*x1_inner + 64L*x0 + ((-16L)*ks1*x0) + ((-16L)*ks2*x0) + ((-4L)*ks1*x1) + ((-4L)*ks1*x1_inner) + ((-4L)*ks2*x1) + ((-4L)*ks2*x1_inner) + ks1*ks2*x1 + ks1*ks2*x1_inner + 4L*ks1*ks2*x0), static_cast<int64_t>((-16L)*(c10::div_floor_integer(static_cast<int64_t>(((-4L)*ks1) + ((-4L)*ks2) + ks1*ks2), static_cast<int64_t>(16L))) + ((-4L)*ks1) + ((-4L)*ks2) + ks1*ks2));
                                }
                            }
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
        arg4_1, arg5_1, arg6_1, arg7_1 = args
        args.clear()
        s33 = arg4_1
        s69 = arg5_1
        s87 = arg6_1
        buf0 = empty_strided_cpu((8, ), (1, ), torch.float32)
        assert_size_stride(arg7_1, (s33, 3, s69, s87), (3*s69*s87, s69*s87, s87, 1), 'input')
        buf1 = empty_strided_cpu((s33, 3, s69, s87), (3*s69*s87, 1, 3*s87, 3), torch.float32)
        cpp_fused_relu_0(arg7_1, buf0, buf1, s33, s69, s87)
        del arg7_1
        # Topologically Sorted Source Nodes: [input_2], Original ATen: [aten.relu]
        buf2 = torch.ops.mkldnn._convolution_pointwise.default(buf1, _frozen_param4, buf0, [0, 0], [1, 1], [1, 1], 1, 'relu', [None], '')
        del buf0
        del buf1
        buf3 = buf2
        assert_size_stride(buf3, (s33, 8, (-2) + s69, (-2) + s87), (32 + ((-16)*s69) + ((-16)*s87) + 8*s69*s87, 1, (-16) + 8*s87, 8), "torch._inductor.fx_passes.functools.partial(<function _register_unary_fusion_lowering.<locals>.fn at 0x7f5b52889580>, Match(..., [arg7_1, clone_default, arg1_1, [0, 0], [1, 1], [1, 1], 1, 'none', [], ''], {}))")
        assert_alignment(buf3, 16, "torch._inductor.fx_passes.functools.partial(<function _register_unary_fusion_lowering.<locals>.fn at 0x7f5b52889580>, Match(..., [arg7_1, clone_default, arg1_1, [0, 0], [1, 1], [1, 1], 1, 'none', [], ''], {}))")
        del buf2
        buf4 = empty_strided_cpu((4, ), (1, ), torch.float32)
        cpp_fused_1(buf4)
        # Topologically Sorted Source Nodes: [input_3], Original ATen: [aten.convolution]
        buf5 = torch.ops.mkldnn._convolution_pointwise.default(buf3, _frozen_param5, buf4, [0, 0], [1, 1], [1, 1], 1, 'none', [None], '')
        del buf3
        del buf4
        buf6 = buf5
        assert_size_stride(buf6, (s33, 4, (-4) + s69, (-4) + s87), (64 + ((-16)*s69) + ((-16)*s87) + 4*s69*s87, 1, (-16) + 4*s87, 4), 'torch.ops.mkldnn._convolution_pointwise.default')
        assert_alignment(buf6, 16, 'torch.ops.mkldnn._convolution_pointwise.default')
        del buf5
        buf7 = empty_strided_cpu((s33, 4, (-4) + s69, (-4) + s87), (64 + ((-16)*s69) + ((-16)*s87) + 4*s69*s87, 16 + ((-4)*s69) + ((-4)*s87) + s69*s87, (-4) + s87, 1), torch.float32)
        cpp_fused_2(buf6, buf7, s33, s69, s87)
        return (buf7, )

runner = Runner(partitions=[])
call = runner.call
recursively_apply_fns = runner.recursively_apply_fns


def get_args():
    from torch._dynamo.testing import rand_strided
    global _frozen_param4
    _frozen_param4 = rand_strided((8, 3, 3, 3), (27, 1, 9, 3), device='cpu', dtype=torch.float32)
    global _frozen_param5
    _frozen_param5 = rand_strided((4, 8, 3, 3), (72, 1, 24, 8), device='cpu', dtype=torch.float32)
    arg4_1 = 2
    arg5_1 = 16
    arg6_1 = 16
    arg7_1 = rand_strided((2, 3, 16, 16), (768, 256, 16, 1), device='cpu', dtype=torch.float32)
    return [arg4_1, arg5_1, arg6_1, arg7_1]


def benchmark_compiled_module(args, times=10, repeat=10):
    from torch._inductor.utils import print_performance
    fn = lambda: call(list(args))
    return print_performance(fn, times=times, repeat=repeat, device='cpu')


if __name__ == "__main__":
    from torch._inductor.wrapper_benchmark import compiled_module_main
    args = get_args()
    compiled_module_main('None', lambda times, repeat: benchmark_compiled_module(args, times=times, repeat=repeat))
