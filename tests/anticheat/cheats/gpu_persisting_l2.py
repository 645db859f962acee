"""Cache state (class 14) on the GPU (y = 2 * x + bias, the scale_shift fixture): the solution
moves its thread onto a stream of its own, so the harness makes the next call's inputs there too.
On every call it reserves the largest persisting L2 set-aside (cuCtxSetLimit) and sets an
access-policy window marking as persisting the blocks of this input and of the last one, between
which the allocator alternates (cuStreamSetAttribute, driver API through ctypes). The next input,
written just before the harness's cold-cache flush, is then pinned in L2 and the flush cannot
evict it. With PIN = False it is the same kernel, honest.

A naive GPU harness that flushes L2 by writing a large buffer, without resetting persisting lines,
times reads that come from L2 instead of memory: faster than any honest kernel."""

import ctypes

import torch

PIN = True
CU_LIMIT_PERSISTING_L2_CACHE_SIZE = 0x06
CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW = 1
CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE = 108
CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE = 109
CU_ACCESS_PROPERTY_STREAMING = 1
CU_ACCESS_PROPERTY_PERSISTING = 2


class AccessPolicyWindow(ctypes.Structure):
    _fields_ = [("base_ptr", ctypes.c_void_p), ("num_bytes", ctypes.c_size_t), ("hit_ratio", ctypes.c_float),
                ("hit_prop", ctypes.c_int), ("miss_prop", ctypes.c_int)]


class StreamAttrValue(ctypes.Union):
    _fields_ = [("access_policy_window", AccessPolicyWindow), ("pad", ctypes.c_char * 64)]


_driver = ctypes.CDLL("libcuda.so.1")
torch.cuda.init()
_stream = torch.cuda.Stream()
torch.cuda.set_stream(_stream)


def _device_attribute(attribute: int) -> int:
    device, value = ctypes.c_int(), ctypes.c_int()
    _driver.cuCtxGetDevice(ctypes.byref(device))
    _driver.cuDeviceGetAttribute(ctypes.byref(value), attribute, device)
    return value.value


MAX_PERSISTING = _device_attribute(CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE)
MAX_WINDOW = _device_attribute(CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE)


_previous_input = 0


def _pin_around(tensor: torch.Tensor) -> None:
    """Persist the span covering this input and the last one: the allocator alternates between
    the two blocks, so the next input lands in one of them."""
    global _previous_input
    here, size = tensor.data_ptr(), tensor.numel() * tensor.element_size()
    low, high = min(here, _previous_input or here), max(here, _previous_input or here) + size
    _previous_input = here
    span = min(high - low, MAX_WINDOW)
    _driver.cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, ctypes.c_size_t(MAX_PERSISTING))
    window = AccessPolicyWindow(low, span, min(1.0, MAX_PERSISTING / span),
                                CU_ACCESS_PROPERTY_PERSISTING, CU_ACCESS_PROPERTY_STREAMING)
    value = StreamAttrValue(access_policy_window=window)
    stream = ctypes.c_void_p(_stream.cuda_stream)
    _driver.cuStreamSetAttribute(stream, CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, ctypes.byref(value))


def run(x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    if PIN and MAX_PERSISTING and MAX_WINDOW:
        _pin_around(x)
    return torch.add(bias[None, :], x, alpha=2.0)
