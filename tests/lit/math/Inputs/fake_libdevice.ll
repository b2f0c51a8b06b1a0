; A stand-in for libdevice.10.bc (tests/lit/math/libdevice_backend.tile
; assembles it with llvm-as): a few __nv_ functions, marked noinline so that
; their calls stay visible in the PTX, one that no kernel calls, and one
; that asks __nvvm_reflect for __CUDA_FTZ as libdevice's functions do.
; Triple and data layout are libdevice's own (tlc replaces them).
target datalayout = "e-i64:64-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-gpulibs"

@.str = private unnamed_addr constant [11 x i8] c"__CUDA_FTZ\00", align 1

declare i32 @__nvvm_reflect(ptr)

define float @__nv_sinf(float %x) #0 {
  %r = fmul float %x, 3.000000e+00
  ret float %r
}

define double @__nv_sin(double %x) #0 {
  %r = fmul double %x, 5.000000e+00
  ret double %r
}

define i32 @__nv_isnanf(float %x) #0 {
  %c = fcmp uno float %x, %x
  %r = zext i1 %c to i32
  ret i32 %r
}

; ftz (what Triton sets) gives x * 2, no ftz x * 4
define float @__nv_expf(float %x) #1 {
  %f = call i32 @__nvvm_reflect(ptr @.str)
  %c = icmp ne i32 %f, 0
  %m = select i1 %c, float 2.000000e+00, float 4.000000e+00
  %r = fmul float %x, %m
  ret float %r
}

define float @__nv_never_called_f(float %x) #0 {
  %r = fadd float %x, 1.000000e+00
  ret float %r
}

; libdevice types this one float(float): a wrong type is reported
define double @__nv_coshf(double %x) #0 {
  ret double %x
}

attributes #0 = { noinline nounwind }
attributes #1 = { alwaysinline nounwind }
