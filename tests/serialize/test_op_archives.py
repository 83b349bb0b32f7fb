"""Operators through PyTorch's own archives: for each expression, a module whose forward
returns it is scripted and saved by PyTorch, loaded by tsjit, and run on the same input;
results (values, dtypes, shapes) must match PyTorch's. Covers what real archives call
beyond the corpus: scripted code as PyTorch prints it, overloads as it resolves them."""
import importlib.util
import os
import warnings

import numpy as np
import pytest

import tsjit

torch = pytest.importorskip("torch", reason="PyTorch is not installed (pip install torch==2.13.0)")

EXPRESSIONS = [
    'torch.view_as_real(torch.complex(x, x))',
    'torch.polar(x.abs(), x).real',
    'torch.cumprod(x, 1)',
    'torch.logcumsumexp(x, 0)',
    'torch.cummax(x, 1)[0]',
    'torch.cummin(x, 0)[1]',
    'torch.diff(x, dim=1)',
    'torch.flip(x, [0, 1])',
    'torch.roll(x, 2, 1)',
    'torch.rot90(x, 1, [0, 1])',
    'torch.tril(x, -1)',
    'torch.triu(x, 1)',
    'torch.diag(x)',
    'torch.diagonal(x, 0, 0, 1)',
    'torch.trace(x)',
    'torch.kron(x, x)',
    'torch.outer(x[0], x[1])',
    'torch.cross(x[:, :3], x[:, 1:4], dim=1)',
    'torch.cdist(x, x)',
    'torch.renorm(x, 2, 0, 1.0)',
    'torch.nan_to_num(x / 0)',
    'torch.clamp(x, min=-0.5)',
    'torch.where(x > 0, x, 0.0)',
    'torch.masked_fill(x, x > 0, 1.0)',
    'torch.masked_select(x, x > 0)',
    'torch.nonzero(x > 0)',
    'torch.argwhere(x > 0)',
    'torch.gather(x, 1, torch.argsort(x, 1))',
    'torch.scatter(x, 1, torch.argsort(x, 1), x)',
    'torch.scatter_add(x, 0, torch.zeros_like(x, dtype=torch.long), x)',
    'torch.index_select(x, 1, torch.tensor([0, 2]))',
    'torch.take(x, torch.tensor([0, 5]))',
    'torch.bucketize(x, torch.tensor([-1.0, 0.0, 1.0]))',
    'torch.searchsorted(torch.tensor([-1.0, 0.0, 1.0]), x)',
    'torch.histc(x, 5)',
    'torch.bincount(torch.tensor([1, 1, 3]))',
    'torch.unique(torch.tensor([3, 1, 3]), return_counts=True)[1]',
    'torch.unique_consecutive(torch.tensor([1, 1, 3, 1]))',
    'torch.kthvalue(x, 2, 1)[0]',
    'torch.median(x, 1)[0]',
    'torch.mode(torch.tensor([[1, 2, 2], [3, 3, 1]]), 1)[0]',
    'torch.quantile(x, 0.3, dim=1)',
    'torch.nanmean(x)',
    'torch.std_mean(x, 1)[0]',
    'torch.var(x, 1, unbiased=False)',
    'torch.logsumexp(x, 1)',
    'torch.prod(x, 1)',
    'torch.amax(x, (0, 1))',
    'torch.aminmax(x)[0]',
    "torch.norm(x, p='fro')",
    'torch.linalg.norm(x, ord=2)',
    'torch.linalg.vector_norm(x, 3)',
    'torch.linalg.inv(x[:, :3] @ x[:, :3].T + torch.eye(3))',
    'torch.linalg.det(x[:, :3])',
    'torch.linalg.solve(x[:, :3] + 3 * torch.eye(3), x[:, :1])',
    'torch.linalg.qr(x)[0].abs()',
    'torch.linalg.svd(x)[1]',
    'torch.linalg.eigh(x[:, :3] @ x[:, :3].T)[0]',
    'torch.linalg.cholesky(x[:, :3] @ x[:, :3].T + torch.eye(3))',
    'torch.linalg.pinv(x)',
    'torch.linalg.matrix_rank(x)',
    "torch.einsum('ij,kj->ik', x, x)",
    'torch.tensordot(x, x, dims=([1], [1]))',
    'torch.addmm(x[:, :3], x, x.T)',
    'torch.chain_matmul(x, x.T)',
    'torch.block_diag(x, x)',
    'torch.cartesian_prod(x[0], x[1])',
    "torch.meshgrid(x[0], x[1], indexing='ij')[0]",
    'torch.stack(torch.split(x, 2, 1)[:2])',
    'torch.chunk(x, 3, 1)[2]',
    'torch.tensor_split(x, 3, 1)[1]',
    'torch.hstack([x, x])',
    'torch.vstack([x, x])',
    'torch.dstack([x, x])',
    'torch.column_stack([x[0], x[1]])',
    'torch.movedim(x.unsqueeze(0), 0, 2)',
    'torch.swapaxes(x, 0, 1)',
    'torch.narrow(x, 1, 1, 2)',
    'x.unfold(1, 2, 1)',
    'x.repeat_interleave(2, dim=0)',
    'x.expand(2, 3, 5)',
    'x.new_full((2,), 3.0)',
    'x.new_zeros(2)',
    'torch.full_like(x, 7)',
    'torch.linspace(0, 1, 5)',
    'torch.logspace(0, 1, 4)',
    'torch.arange(0, 1, 0.25)',
    'torch.eye(2, 3)',
    'torch.empty(0, 3)',
    'torch.heaviside(x, torch.tensor(0.5))',
    'torch.logit(torch.sigmoid(x), 1e-6)',
    'torch.erfinv(torch.tanh(x))',
    'torch.lgamma(x.abs() + 1)',
    'torch.digamma(x.abs() + 1)',
    'torch.polygamma(1, x.abs() + 1)',
    'torch.i0(x)',
    'torch.special.expit(x)',
    'torch.special.erfcx(x)',
    'torch.xlogy(x.abs(), x.abs())',
    'torch.hypot(x, x)',
    'torch.atan2(x, x + 1)',
    'torch.copysign(x, -1.0)',
    'torch.fmod(x, 0.3)',
    'torch.remainder(x, -0.3)',
    'torch.frac(x)',
    'torch.trunc(x * 3)',
    'torch.sgn(x)',
    'torch.signbit(x)',
    'torch.float_power(x.abs(), 2)',
    'torch.true_divide(x, 3)',
    'torch.floor_divide(x, 0.3)',
    'torch.bitwise_xor(torch.tensor([5, 3]), torch.tensor([1, 7]))',
    'torch.bitwise_left_shift(torch.tensor([5, 3]), 2)',
    'torch.gcd(torch.tensor([12, 18]), torch.tensor([8, 27]))',
    'torch.lcm(torch.tensor([4, 6]), torch.tensor([6, 4]))',
    'torch.isclose(x, x + 1e-9)',
    'torch.allclose(x, x)',
    'torch.equal(x, x)',
    'torch.isin(torch.tensor([1, 2, 3]), torch.tensor([2]))',
    'torch.topk(x, 2, largest=False)[1]',
    'torch.msort(x)',
    'torch.argmax(x)',
    'F.normalize(x, dim=1)',
    'F.one_hot(torch.tensor([0, 2]), 4)',
    "F.pad(x, (1, 1), mode='constant', value=2.0)",
    "F.pad(x.unsqueeze(0), (1, 2), mode='reflect')",
    "F.pad(x.unsqueeze(0), (1, 2), mode='circular')",
    "F.pad(x.unsqueeze(0), (1, 2), mode='replicate')",
    "F.interpolate(x.unsqueeze(0), scale_factor=2.0, mode='linear')",
    "F.interpolate(x.unsqueeze(0).unsqueeze(0), size=(5, 7), mode='nearest-exact')",
    "F.interpolate(x.unsqueeze(0).unsqueeze(0), scale_factor=0.5, mode='area')",
    'F.grid_sample(x.view(1, 1, 3, 5), torch.zeros(1, 2, 2, 2), align_corners=False)',
    'F.affine_grid(torch.eye(2, 3).unsqueeze(0), [1, 1, 2, 3], align_corners=False)',
    'F.glu(x[:, :4])',
    'F.hardsigmoid(x)',
    'F.rrelu(x, training=False)',
    'F.threshold(x, 0.1, 20.0)',
    'F.softshrink(x, 0.3)',
    'F.hardshrink(x, 0.3)',
    'F.relu6(x * 10)',
    'F.logsigmoid(x)',
    'F.local_response_norm(x.view(1, 3, 5, 1), 2)',
    'F.layer_norm(x, [5])',
    'F.group_norm(x.view(1, 3, 5), 1)',
    'F.instance_norm(x.view(1, 3, 5))',
    'F.batch_norm(x, torch.zeros(5), torch.ones(5))',
    'F.dropout(x, 0.5, False)',
    'F.embedding(torch.tensor([1, 2]), x)',
    'F.cosine_embedding_loss(x, x, torch.ones(3))',
    'F.margin_ranking_loss(x[0], x[1], torch.ones(5))',
    'F.triplet_margin_loss(x, x.flip(0), x)',
    'F.poisson_nll_loss(x, x.abs())',
    'F.hinge_embedding_loss(x, torch.ones(3, 5))',
    'F.soft_margin_loss(x, torch.ones(3, 5))',
    'F.multilabel_soft_margin_loss(x, torch.ones(3, 5))',
    'F.multi_margin_loss(x, torch.tensor([0, 1, 2]))',
    'F.scaled_dot_product_attention(x.unsqueeze(0), x.unsqueeze(0), x.unsqueeze(0), is_causal=True)',
    'F.avg_pool1d(x.unsqueeze(0), 2)',
    'F.max_pool1d(x.unsqueeze(0), 2, return_indices=True)[1]',
    'F.max_unpool1d(*F.max_pool1d(x.unsqueeze(0), 2, return_indices=True), 2)',
    'F.adaptive_avg_pool1d(x.unsqueeze(0), 2)',
    'F.silu(x, inplace=False)',
    'F.mish(x)',
    'F.elu(x, alpha=0.5)',
    'F.celu(x, 2.0)',
    'F.softplus(x, 2, 1)',
    'x.to(torch.float16).to(torch.float32)',
    'x.double().sum()',
    '(x * 100).to(torch.int8)',
    '(x > 0).to(torch.uint8).sum()',
    'x.half() + x.half()',
    'x.storage_offset()',
    'x.stride()',
    'x.is_contiguous()',
    'x.T.contiguous().stride()',
    'x.element_size()',
    'x.numel()',
    'x.ndim',
    'x.device',
    'x.shape',
    'x.size(-1)',
    'x.dim()',
    'x.is_floating_point()',
    'x[0, 0].item()',
    'x.clone().fill_(2.0).sum()',
    'x.clone().zero_().sum()',
    'torch.zeros(3).index_add_(0, torch.tensor([0, 0]), torch.tensor([1.0, 2.0]))',
    'torch.zeros(3).index_fill_(0, torch.tensor([1]), 5.0)',
    'torch.zeros(3).index_copy_(0, torch.tensor([2]), torch.tensor([4.0]))',
    'torch.zeros(3).masked_scatter_(torch.tensor([True, False, True]), torch.tensor([1.0, 2.0]))',
    "torch.zeros(2, 3).scatter_reduce(1, torch.tensor([[0, 0], [1, 2]]), torch.ones(2, 2), 'sum')",
    'torch.zeros(3).put_(torch.tensor([1]), torch.tensor([9.0]))',
    'x.clone().clamp_(-0.1, 0.1)',
    'x.clone().addcmul_(x, x, value=0.5)',
    'x.clone().addcdiv_(x, x.abs() + 1, value=2)',
    'x.lerp(x + 1, 0.3)',
    'torch.count_nonzero(x > 0, 1)',
    'torch.all(x > -10)',
    'torch.any(x > 10, 1)',
    'torch.logical_xor(x > 0, x < 0.5)',
    'torch.clip(x, -0.2, 0.2)',
    'torch.atleast_2d(x[0])',
    'torch.squeeze(x.unsqueeze(0), 0)',
    'x.flatten(0)',
    'x.ravel()',
    'x.view(-1).view(5, 3)',
    'x.reshape(5, -1)',
    'x.permute(1, 0)',
    'x.t_().clone() if False else x.t()',
    'x.type_as(torch.tensor([1]))',
    'torch.can_cast(torch.float32, torch.int32)',
    'torch.promote_types(torch.int32, torch.float16)'
]


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    """The expressions as modules W0, W1, ... of one generated source file."""
    folder = tmp_path_factory.mktemp("op_archives")
    path = os.path.join(str(folder), "op_modules.py")
    body = ["import torch", "import torch.nn.functional as F", ""]
    for i, e in enumerate(EXPRESSIONS):
        body += [f"class W{i}(torch.nn.Module):", "    def forward(self, x: torch.Tensor):",
                 f"        return {e}", ""]
    with open(path, "w") as fh:
        fh.write("\n".join(body))
    spec = importlib.util.spec_from_file_location("op_modules", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, str(folder)


def _plain(v):
    """Results as comparable Python/numpy values (tensors as (dtype name, array))."""
    if isinstance(v, (torch.Tensor, tsjit.Tensor)):
        a = v.detach().numpy() if isinstance(v, torch.Tensor) else v.numpy()
        return (str(v.dtype).split(".")[-1], a)
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def _same(a, b) -> bool:
    if isinstance(a, tuple):
        return isinstance(b, tuple) and a[0] == b[0] and a[1].shape == b[1].shape and \
            np.allclose(a[1].astype(np.float64), b[1].astype(np.float64), rtol=1e-4, atol=1e-5,
                        equal_nan=True)
    if isinstance(a, list):
        return isinstance(b, (list, tuple)) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, float):
        return isinstance(b, float) and (np.isclose(a, b) or a != a and b != b)
    if isinstance(a, torch.Size):
        return list(a) == list(b)
    if isinstance(a, torch.device):
        return str(a) == str(b)
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("i", range(len(EXPRESSIONS)), ids=lambda i: EXPRESSIONS[i])
def test_expression_through_a_pytorch_archive(i, modules):
    module, folder = modules
    torch.manual_seed(0)
    x = torch.randn(3, 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scripted = torch.jit.script(getattr(module, f"W{i}")())
        path = os.path.join(folder, f"w{i}.pt")
        torch.jit.save(scripted, path)
        want = _plain(scripted(x.clone()))
    got = _plain(tsjit.load(path)(tsjit.from_numpy(x.numpy().copy())))
    assert _same(want, got), f"{EXPRESSIONS[i]}: torch {want!r}\ntsjit {got!r}"
