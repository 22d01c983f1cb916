"""Opacus with the certified accountant: a tiny model trained for a few DP-SGD steps by
``PrivacyEngine(accountant="certified-pld")`` (:func:`reference.profiles.dpsgd_accountant.register_with_opacus`).

Skipped when torch or Opacus is not installed (``pip install 'fullyadaptive[opacus]'``).
"""
from __future__ import annotations

from fractions import Fraction

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed (the 'opacus' extra)")
opacus = pytest.importorskip("opacus", reason="Opacus is not installed (the 'opacus' extra)")

from reference.precision import mpf_to_fraction  # noqa: E402
from reference.profiles.dpsgd_accountant import (MECHANISM, CertifiedAccountant, get_noise_multiplier,  # noqa: E402
                                                 register_with_opacus)


def _train(engine, noise_multiplier, epochs=2):
    torch.manual_seed(0)
    x = torch.randn(64, 4)
    y = (x[:, 0] > 0).long()
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=8)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model, opt, loader = engine.make_private(module=model, optimizer=opt, data_loader=loader,
                                             noise_multiplier=noise_multiplier, max_grad_norm=1.0)
    loss_fn = torch.nn.CrossEntropyLoss()
    for _ in range(epochs):
        for xb, yb in loader:
            opt.zero_grad()
            if len(xb):
                loss_fn(model(xb), yb).backward()
            opt.step()
    return model, opt


def test_privacy_engine_trains_with_the_certified_accountant():
    engine = opacus.PrivacyEngine(accountant=register_with_opacus())
    assert isinstance(engine.accountant, CertifiedAccountant)
    assert isinstance(engine.accountant, opacus.accountants.IAccountant)
    _train(engine, 1.1)
    acc = engine.accountant
    assert acc.history == [(1.1, 1 / 8, 16)]  # Opacus's hook: one step per batch, sample rate 1/len(loader)
    eps = engine.get_epsilon(1e-5)
    b = acc.get_epsilon_bracket(1e-5)
    assert Fraction(eps) >= mpf_to_fraction(b.hi) and b.lo > 0
    # Opacus's own RDP accountant on the same history is an upper bound too: it is above the certified lower end
    rdp = opacus.accountants.RDPAccountant()
    rdp.history = list(acc.history)
    assert rdp.get_epsilon(1e-5) >= float(b.lo)


def test_checkpoint_round_trip(tmp_path):
    engine = opacus.PrivacyEngine(accountant=register_with_opacus())
    model, opt = _train(engine, 1.3, epochs=1)
    path = tmp_path / "ckpt.pt"
    engine.save_checkpoint(path=path, module=model, optimizer=opt)
    other = opacus.PrivacyEngine(accountant=MECHANISM)
    model2, opt2 = _train(other, 1.3, epochs=0)
    other.load_checkpoint(path=path, module=model2, optimizer=opt2)
    assert other.accountant.history == engine.accountant.history
    assert other.get_epsilon(1e-5) == engine.get_epsilon(1e-5)


def test_calibrated_noise_trains_within_the_target():
    r = get_noise_multiplier(target_epsilon=3.0, target_delta=1e-5, sample_rate=1 / 8, epochs=2)
    engine = opacus.PrivacyEngine(accountant=register_with_opacus())
    _train(engine, float(r), epochs=2)
    assert engine.accountant.num_steps == r.steps == 16
    assert engine.get_epsilon(1e-5) <= 3.0
