"""Loads a checkpoint written by `webtensor train` into PyTorch and measures its accuracy on all
1,797 digits, to compare with what webtensor reported (train and test accuracy weighted by their
1,437 and 360 images). Needs torch, safetensors and scikit-learn.

    webtensor train --json --checkpoint digits.safetensors > run.json
    python3 scripts/check_digits_torch.py digits.safetensors run.json
"""

import json
import sys

import torch
from safetensors.torch import load_file
from sklearn.datasets import load_digits


def main() -> None:
    state = load_file(sys.argv[1])
    hidden = state["0.weight"].shape[0]
    model = torch.nn.Sequential(torch.nn.Linear(64, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 10))
    model.load_state_dict(state)  # strict: PyTorch's keys and shapes
    d = load_digits()
    x = torch.tensor(d.images.reshape(-1, 64), dtype=torch.float32) / 16.0
    y = torch.tensor(d.target)
    with torch.no_grad():
        acc = (model(x).argmax(1) == y).float().mean().item()
    line = f"PyTorch {torch.__version__}: the checkpoint ({hidden} hidden) classifies {acc:.4%} of the 1,797 digits"
    if len(sys.argv) > 2:
        run = json.load(open(sys.argv[2]))
        last = run["epochs"][-1]
        n_train, n_test = run["train_images"], run["test_images"]
        want = (last["train_accuracy"] * n_train + last["test_accuracy"] * n_test) / (n_train + n_test)
        line += f"; webtensor reported {want:.4%} on {','.join(run['devices'])}"
        assert abs(acc - want) < 1.5 / 1797, f"PyTorch {acc} against webtensor {want}"
    print(line)


if __name__ == "__main__":
    main()
