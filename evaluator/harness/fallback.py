"""Fallback rules, checked in the solution's process: the solution must not run the problem's
reference (or baseline) instead of its own kernel, nor the library operations its problem
forbids (`forbidden` in the definition, e.g. torch.matmul for a GEMM problem).

Statically, the solution's sources must not name a forbidden function. At run time, an audit hook
(which the solution cannot remove) watches for the problem's sources being opened while solution
code runs, and each forbidden Python function is wrapped by a tripwire that records the call.

Names are easy to dodge (torch.ops.aten.mm, torch.einsum, a bmm of a batch of one, a call at
import time or from a thread), so the operations themselves are also forbidden at PyTorch's
dispatcher, for the whole life of the process: every ATen operator a forbidden name reaches, and
the others of its family (FAMILIES), gets a kernel of ours on each dispatch key that holds a
computing kernel, before the solution is imported. Ours records a violation and raises, whether
run() is active or not. The originals stay unreachable: on every key that computes, the
dispatcher runs ours (theirs lie under it until our registration is removed), and the libraries
holding our registrations are kept where gc cannot find them. verify() checks that the dispatch
table still runs our kernels (nothing removed, nothing registered over them).
"""

from __future__ import annotations

import ast
import ctypes
import functools
import importlib
import os
import re
import secrets
import sys
import threading
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from .problem import OPERATOR_RULE

PROBLEM_SOURCES = ("reference.py", "baseline.py")
MAX_KEPT = 100  # violations kept between two take()s

# The operators of one operation, whatever name reaches them ("ns::name": every overload).
# Operators a PyTorch build lacks are skipped.
FAMILIES: dict[str, tuple[str, ...]] = {family: tuple(ops.split()) for family, ops in {
    "matrix product": """
        aten::mm aten::bmm aten::addmm aten::addmm_ aten::addbmm aten::addbmm_ aten::baddbmm
        aten::baddbmm_ aten::mv aten::addmv aten::addmv_ aten::dot aten::vdot aten::inner aten::matmul
        aten::linalg_matmul aten::linear aten::bilinear aten::_trilinear aten::einsum aten::tensordot
        aten::chain_matmul aten::linalg_multi_dot aten::_addmm_activation aten::_int_mm
        aten::_mixed_dtypes_linear aten::_weight_int8pack_mm aten::_weight_int4pack_mm
        aten::_weight_int4pack_mm_for_cpu aten::_weight_int4pack_mm_with_scales_and_zeros
        aten::_dyn_quant_matmul_4bit aten::_grouped_mm aten::_foreach_mm aten::_scaled_mm
        aten::_scaled_mm_v2 aten::_scaled_grouped_mm aten::_scaled_grouped_mm_v2 aten::_sparse_mm
        aten::_sparse_addmm aten::_sparse_sparse_matmul aten::hspmm aten::smm aten::sspaddmm
        aten::sparse_sampled_addmm aten::_sparse_semi_structured_mm aten::_sparse_semi_structured_addmm
        aten::_sparse_semi_structured_linear aten::_cslt_sparse_mm aten::mkldnn_linear
        aten::fbgemm_linear_fp16_weight aten::fbgemm_linear_fp16_weight_fp32_activation
        aten::fbgemm_linear_int8_weight aten::fbgemm_linear_int8_weight_fp32_activation
        mkldnn::_linear_pointwise mkl::_mkl_linear inductor::_mm_plus_mm quantized::linear
        quantized::linear_dynamic quantized::linear_dynamic_fp16
        quantized::linear_dynamic_fp16_unpacked_weight quantized::linear_relu quantized::linear_relu_dynamic
        quantized::linear_relu_dynamic_fp16
        quantized::linear_leaky_relu quantized::linear_tanh quantized::matmul _quantized::linear
        _quantized::linear_dynamic _quantized::wrapped_fbgemm_linear_fp16_weight
        _quantized::wrapped_quantized_linear _quantized::_wrapped_quantized_linear_prepacked
        aten::_wrapped_quantized_linear_prepacked
        onednn::linear_dynamic_fp16 onednn::linear_relu_dynamic_fp16 onednn::qlinear_pointwise""",
    "scaled matrix product": """
        aten::_scaled_mm aten::_scaled_mm_v2 aten::_scaled_grouped_mm aten::_scaled_grouped_mm_v2""",
    "softmax": """
        aten::softmax aten::_softmax aten::_safe_softmax aten::special_softmax aten::_masked_softmax
        aten::_sparse_softmax aten::_nested_tensor_softmax_with_shape quantized::softmax""",
    "log-softmax": "aten::log_softmax aten::_log_softmax aten::special_log_softmax aten::_sparse_log_softmax",
    "layer norm": "aten::layer_norm aten::native_layer_norm quantized::layer_norm",
    "RMS norm": "aten::rms_norm aten::_fused_rms_norm",
    "attention": """
        aten::scaled_dot_product_attention aten::_scaled_dot_product_attention_math
        aten::_scaled_dot_product_attention_math_for_mps aten::_scaled_dot_product_flash_attention
        aten::_scaled_dot_product_flash_attention_for_cpu aten::_scaled_dot_product_efficient_attention
        aten::_scaled_dot_product_cudnn_attention aten::_scaled_dot_product_fused_attention_overrideable
        aten::_flash_attention_forward aten::_flash_attention_forward_no_dropout_inplace
        aten::_efficient_attention_forward aten::_cudnn_attention_forward aten::_native_multi_head_attention
        aten::_triton_multi_head_attention aten::_triton_scaled_dot_attention""",
    "convolution": """
        aten::convolution aten::_convolution aten::_convolution_mode aten::conv1d aten::conv2d aten::conv3d
        aten::conv_transpose1d aten::conv_transpose2d aten::conv_transpose3d aten::conv_tbc
        aten::convolution_overrideable aten::cudnn_convolution aten::cudnn_convolution_transpose
        aten::cudnn_convolution_relu aten::cudnn_convolution_add_relu aten::miopen_convolution
        aten::miopen_convolution_transpose aten::miopen_depthwise_convolution aten::mkldnn_convolution
        aten::_mps_convolution aten::_mps_convolution_transpose aten::_slow_conv2d_forward aten::thnn_conv2d
        aten::slow_conv3d aten::slow_conv3d_forward aten::slow_conv_dilated2d aten::slow_conv_dilated3d
        aten::slow_conv_transpose2d aten::slow_conv_transpose3d aten::_conv_depthwise2d aten::conv_depthwise3d
        aten::_nnpack_spatial_convolution mkldnn::_convolution_pointwise""",
}.items()}

_TENSOR_GEMM = "matmul mm bmm addmm addmm_ baddbmm baddbmm_ addbmm addbmm_ mv addmv addmv_ dot vdot inner"
_CONV = "conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d"
# Python names a problem may forbid -> the family of the operation they run.
PYTHON_NAMES: dict[str, str] = {name: family for family, names in {
    "matrix product": f"""
        torch.matmul torch.mm torch.bmm torch.addmm torch.addbmm torch.baddbmm torch.mv torch.addmv
        torch.dot torch.vdot torch.inner torch.einsum torch.tensordot torch.chain_matmul torch.linalg.matmul
        torch.linalg.multi_dot torch.nn.functional.linear torch.nn.functional.bilinear torch.sparse.mm
        torch.sparse.addmm torch._int_mm torch.Tensor.__matmul__ torch.Tensor.__rmatmul__
        {" ".join(f"torch.Tensor.{m}" for m in _TENSOR_GEMM.split())}""",
    "scaled matrix product": "torch._scaled_mm torch._scaled_grouped_mm",
    "softmax": """
        torch.softmax torch._softmax torch.nn.functional.softmax torch.Tensor.softmax torch.special.softmax
        torch._masked_softmax torch.sparse.softmax""",
    "log-softmax": """
        torch.log_softmax torch._log_softmax torch.nn.functional.log_softmax torch.Tensor.log_softmax
        torch.special.log_softmax torch.sparse.log_softmax""",
    "layer norm": "torch.nn.functional.layer_norm torch.layer_norm torch.native_layer_norm",
    "RMS norm": "torch.nn.functional.rms_norm torch.rms_norm",
    "attention": """
        torch.nn.functional.scaled_dot_product_attention torch.nn.functional.multi_head_attention_forward
        torch._native_multi_head_attention""",
    "convolution": " ".join(["torch.convolution torch.conv_tbc",
                             *(f"torch.{c} torch.nn.functional.{c}" for c in _CONV.split())]),
}.items() for name in names.split()}

# Dispatch keys whose kernels compute nothing themselves (shapes only, or they pass the call on
# down to the key that computes): left alone, so tracing with fake tensors keeps working.
PASS_ON_KEYS = ("Autograd", "Autocast", "FuncTorch", "Batched", "Python", "VmapMode", "Functionalize",
                "ADInplaceOrView", "Tracer", "Conjugate", "Negative", "ZeroTensor", "PreDispatch",
                "BackendSelect", "Named")
_ACTIVE_LINE = re.compile(r"^(\w+)(?:\[alias\])?: (?:fallthrough )?registered at ")
_DUMP_HEADER = ("name", "schema", "debug")


class ForbiddenOperation(RuntimeError):
    """Raised by our kernel of a forbidden operator (the violation is recorded before)."""


@dataclass(frozen=True)
class Guarded:
    """One operator overload under our kernels: why it is forbidden and on which keys."""

    op: str  # ns::name[.overload]
    rule: str  # the entry of `forbidden` that forbids it
    family: str | None
    keys: tuple[str, ...]  # where ours is registered (runtime keys and alias keys)
    slots: tuple[tuple[str, Any], ...]  # runtime keys (name, DispatchKey) running ours, for verify()


class Tripwires:
    """The run-time side of the rules, installed before the solution is imported. The harness
    sets `active` around solution code (it only changes how a violation reads, and arms the
    audit hook and the Python wrappers); take() after the import and after each call: the first
    violation recorded since, or a sign that our kernels were removed (cheap); verify() at gates
    outside the timed window: every kernel of ours still in place (under a millisecond)."""

    def __init__(self, problem_dir: Path, forbidden: Iterable[str]) -> None:
        forbidden = tuple(forbidden)
        self.problem_sources = {str((problem_dir / name).resolve()) for name in PROBLEM_SOURCES}
        self.active = False
        self.violations: list[str] = []
        self.marker = f"solarena-forbidden-{secrets.token_hex(8)}"
        self._main_thread = threading.main_thread().ident
        sys.addaudithook(self._audit)
        for name in forbidden:
            if not OPERATOR_RULE.match(name):
                self._wrap(name)
        self.guarded = self._guard(forbidden)
        # One slot per registration library: removing one removes all of its kernels at once.
        self.canaries = list({g.op.split("::")[0]: (g.op, g.slots[0]) for g in self.guarded}.values())

    def _audit(self, event: str, args: tuple[Any, ...]) -> None:
        if not self.active or event != "open" or not args:
            return
        path = args[0]
        if isinstance(path, (str, bytes, os.PathLike)):
            resolved = os.path.realpath(os.fsdecode(path))
            if resolved in self.problem_sources:
                self.violations.append(f"the solution read the problem's {Path(resolved).name}: "
                                       "falling back to the reference is not allowed")

    def _wrap(self, dotted: str) -> None:
        owner, attr = resolve_owner(dotted)
        if owner is None:
            return
        original = getattr(owner, attr)

        @functools.wraps(original)
        def tripwire(*args: Any, **kwargs: Any) -> Any:
            if self.active:
                self.violations.append(f"the solution called {dotted}, which this problem forbids")
            return original(*args, **kwargs)

        del tripwire.__wrapped__  # functools.wraps would hand out the original
        setattr(owner, attr, tripwire)

    def _guard(self, forbidden: tuple[str, ...]) -> tuple[Guarded, ...]:
        """Our kernel on every computing key of every operator the rules forbid."""
        plan = operators_forbidden(forbidden)
        handles: dict[str, Any] = {}
        registered: list[tuple[str, str, str | None, tuple[str, ...]]] = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "Overriding a previously registered kernel"
            for op, (rule, family) in plan.items():
                keys = computing_keys(op)
                ns, name = op.split("::", 1)
                if ns not in handles:
                    handles[ns] = torch._C._dispatch_library("IMPL", ns, "", self.marker, 0)
                kernel = self._kernel(op, rule, family)
                for key in keys:
                    handles[ns].impl(name, key, kernel, False)
                registered.append((op, rule, family, keys))
        for handle in handles.values():
            _keep_alive(handle)
        guarded = [Guarded(op, rule, family, keys, self._slots(op, keys))
                   for op, rule, family, keys in registered]
        return tuple(g for g in guarded if g.slots)

    def _slots(self, op: str, keys: tuple[str, ...]) -> tuple[tuple[str, Any], ...]:
        """The runtime keys that run our kernel: those we registered on, and CPU and CUDA where we
        registered on an alias (CompositeImplicitAutograd, ...), which fills them."""
        is_alias = torch._C._dispatch_is_alias_key
        parsed = {name: key for name in keys if (key := torch._C._parse_dispatch_key(name)) is not None}
        if any(is_alias(key) for key in parsed.values()):
            parsed |= {"CPU": torch._C.DispatchKey.CPU, "CUDA": torch._C.DispatchKey.CUDA}
        return tuple((name, key) for name, key in parsed.items()
                     if not is_alias(key) and _ours(op, key, self.marker))

    def _kernel(self, op: str, rule: str, family: str | None) -> Callable[..., Any]:
        what = f"{op} ({f'the {family}, ' if family else ''}which this problem forbids as {rule})"

        def forbidden_operator(*args: Any, **kwargs: Any) -> Any:
            violation = f"the solution ran {what} {self._where()}".rstrip()
            if len(self.violations) < MAX_KEPT:  # a loop on a thread must not fill the memory
                self.violations.append(violation)
            raise ForbiddenOperation(violation)

        return forbidden_operator

    def _where(self) -> str:
        other = threading.get_ident() != self._main_thread  # get_ident registers no dummy thread
        if self.active:  # the caller says when (importing, run(...))
            return "from a thread of its own" if other else ""
        return ("outside run(), from a thread of its own" if other
                else "outside run() and its import (from a hook)")

    def take(self) -> str | None:
        """The first violation since the last call, if any; else the first sign that our kernels
        were removed (one probe per namespace: removing them takes all of a library's at once)."""
        found = self.violations[0] if self.violations else None
        self.violations.clear()
        return found or self._check(self.canaries)

    def verify(self) -> str | None:
        """A violation text if, on some runtime key where one of ours ran, the dispatcher now runs
        another kernel (ours removed, or another registered over it)."""
        return self._check((g.op, slot) for g in self.guarded for slot in g.slots)

    def _check(self, slots: Iterable[tuple[str, tuple[str, Any]]]) -> str | None:
        for op, (name, key) in slots:
            if not _ours(op, key, self.marker):
                return (f"the harness's kernel for {op}, which this problem forbids, is no longer the one "
                        f"the dispatcher runs for {name}: the solution removed or replaced it")
        return None


def operators_forbidden(forbidden: Iterable[str]) -> dict[str, tuple[str, str | None]]:
    """Each operator overload the rules forbid -> (the first rule forbidding it, its family).
    A rule is an operator ("aten::mm": all its overloads; "aten::mm.out": that one) or a Python
    name of PYTHON_NAMES (all the operators of its family); other names reach no operator here."""
    overloads = _overloads()
    found: dict[str, tuple[str, str | None]] = {}
    for rule in forbidden:
        if OPERATOR_RULE.match(rule):
            family = None
            ops = [rule] if "." in rule else overloads.get(rule, [])
        elif rule in PYTHON_NAMES:
            family = PYTHON_NAMES[rule]
            ops = [o for base in FAMILIES[family] for o in overloads.get(base, [])]
        else:
            continue
        for op in ops:
            found.setdefault(op, (rule, family))
    return found


@functools.cache
def _overloads() -> dict[str, list[str]]:
    """ns::name -> its registered overloads (ns::name for the default one, ns::name.overload)."""
    found: dict[str, list[str]] = {}
    for op in torch._C._dispatch_get_all_op_names():
        found.setdefault(op.split(".", 1)[0], []).append(op)
    return found


def computing_keys(op: str) -> tuple[str, ...]:
    """The dispatch keys holding a kernel of `op` that computes (backends and the composite
    aliases, not Meta nor the keys that pass a call on); none if the operator does not exist."""
    try:
        dump = torch._C._dispatch_dump(op)
    except RuntimeError:
        return ()
    keys = []
    for line in dump.splitlines():
        match = _ACTIVE_LINE.match(line)
        if match and match.group(1) not in _DUMP_HEADER and _computes(match.group(1)):
            keys.append(match.group(1))
    return tuple(keys)


def _computes(key: str) -> bool:
    return not key.endswith("Meta") and not key.startswith(PASS_ON_KEYS)


def _ours(op: str, slot: Any, marker: str) -> bool:
    """Whether the kernel the dispatcher runs for `op` on the runtime key `slot` is one of ours
    (its debug text names the library we registered it from)."""
    try:
        kernel = torch._C._dispatch_get_computed_kernel_for_dispatch_key(op, slot)
    except RuntimeError:
        return False
    return marker in repr(kernel)


def _keep_alive(handle: Any) -> None:
    """Keep a registration library alive (its destruction removes our kernels) with no reference
    from any Python object, so it cannot be found through gc and destroyed."""
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(handle))


def resolve_owner(dotted: str) -> tuple[Any, str]:
    """(object holding the attribute, attribute name) for a dotted name like torch.nn.functional.linear."""
    parts = dotted.split(".")
    for split in range(len(parts) - 1, 0, -1):
        try:
            owner: Any = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        try:
            for part in parts[split:-1]:
                owner = getattr(owner, part)
        except AttributeError:
            return None, ""
        return (owner, parts[-1]) if hasattr(owner, parts[-1]) else (None, "")
    return None, ""


def named_in_source(sources: Iterable[Path], forbidden: Iterable[str]) -> str | None:
    """A forbidden name the sources refer to (an attribute chain, through import aliases, or an
    imported name), if any. An operator rule "ns::op" is looked for as torch.ops.ns.op."""
    wanted = {_as_dotted(name): name for name in forbidden}
    if not wanted:
        return None
    for path in sources:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, OSError):
            continue
        aliases = _aliases(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Attribute):
                names = [_chain(node, aliases) or ""]
            else:
                continue
            for name in names:
                if name in wanted:
                    return wanted[name]
    return None


def _as_dotted(rule: str) -> str:
    return "torch.ops." + rule.replace("::", ".") if OPERATOR_RULE.match(rule) else rule


def _aliases(tree: ast.AST) -> dict[str, str]:
    """Local names bound by imports -> the dotted names they stand for."""
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                found[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                found[a.asname or a.name] = f"{node.module}.{a.name}"
    return found


def _chain(node: ast.AST, aliases: dict[str, str]) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([aliases.get(node.id, node.id), *reversed(parts)])
    return None
