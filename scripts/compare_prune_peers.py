"""Torch-Pruning, what a PyTorch user would run instead of `hone prune`, on the bundled Fashion-MNIST CNN.

Run in scripts/compare-prune-peers' own venv (torch, torch-pruning, onnx, numpy from PyPI). The PyTorch module is
rebuilt from models/fashion_mnist/model.onnx's weights (the architecture of models/fashion_mnist/train_export.py)
and checked against reference_logits.npy before anything is pruned. Torch-Pruning prunes it to the same structure
`hone prune --ratio 0.5` reaches (conv2 32 -> 16 channels, fc1 64 -> 32 neurons; conv1 and the output layer left,
as hone's channel block leaves conv1), ranking channels and neurons by the L2 norm of their weights (its
MagnitudeImportance, the default a user starts from): once as it is, and once fine-tuned on the calibration rows
with their labels (the only training data this project has; hone's refit sees the same rows, without labels). Each
is exported to ONNX (opset 17, TorchScript exporter) for hone to measure.
"""

import argparse
import copy
import sys

import numpy as np
import onnx
import torch
import torch_pruning as tp
from onnx import numpy_helper
from torch import nn


class Net(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.mean, self.std = mean, std
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(1568, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, image):
        x = (image - self.mean) / self.std
        x = nn.functional.max_pool2d(torch.relu(self.conv1(x)), 2)
        x = nn.functional.max_pool2d(torch.relu(self.conv2(x)), 2)
        return self.fc2(torch.relu(self.fc1(torch.flatten(x, 1))))


def load(path):
    model = onnx.load(path)
    weights = {t.name: torch.from_numpy(numpy_helper.to_array(t).copy()) for t in model.graph.initializer}
    constants = [float(numpy_helper.to_array(a.t)) for n in model.graph.node if n.op_type == "Constant"
                 for a in n.attribute if a.name == "value"]
    net = Net(constants[0], constants[1])  # the Sub's mean, then the Div's std
    net.load_state_dict(weights)
    return net.eval()


def fine_tune(net, images, labels, epochs, seed):
    torch.manual_seed(seed)
    net.train()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    n = len(images)
    for _ in range(epochs):
        order = torch.randperm(n)
        for start in range(0, n, 64):
            idx = order[start:start + 64]
            opt.zero_grad()
            loss = nn.functional.cross_entropy(net(images[idx]), labels[idx])
            loss.backward()
            opt.step()
    return net.eval()


def export(net, path):
    torch.onnx.export(net, (torch.zeros(1, 1, 28, 28),), path, dynamo=False, opset_version=17,
                      input_names=["image"], output_names=["logits"],
                      dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}})


class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1, self.bn1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout)
        self.conv2, self.bn2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.bn2(self.conv2(torch.relu(self.bn1(self.conv1(x)))))
        return torch.relu(y + (x if self.down is None else self.down(x)))


class ResNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 64, 3, 1, 1, bias=False), nn.BatchNorm2d(64), nn.ReLU())
        self.layers = nn.Sequential(Block(64, 64, 1), Block(64, 64, 1), Block(64, 128, 2), Block(128, 128, 1),
                                    Block(128, 256, 2), Block(256, 256, 1))
        self.fc = nn.Linear(256, 10)

    def forward(self, image):
        x = self.layers(self.stem(image))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


def resnet_probe(out):
    torch.manual_seed(0)
    net = ResNet().train()
    with torch.no_grad():  # BatchNorm statistics from data, as a trained model has them
        for _ in range(10):
            net(torch.rand(64, 3, 32, 32))
    net.eval()
    torch.onnx.export(net, (torch.zeros(1, 3, 32, 32),), f"{out}/resnet.onnx", dynamo=False, opset_version=17,
                      input_names=["image"], output_names=["logits"],
                      dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}})
    images = np.random.default_rng(0).random((1024, 3, 32, 32), dtype=np.float32)
    np.savez(f"{out}/images.npz", image=images)
    print(f"wrote {out}/resnet.onnx (random weights) and {out}/images.npz (1,024 random images)")
    return 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "resnet":
        r = argparse.ArgumentParser()
        r.add_argument("command")
        r.add_argument("--out", required=True)
        return resnet_probe(r.parse_args().out)
    p = argparse.ArgumentParser()
    p.add_argument("--model", required=True)
    p.add_argument("--data", required=True)
    p.add_argument("--reference", required=True)
    p.add_argument("--cal-rows", type=int, required=True)
    p.add_argument("--ratio", type=float, default=0.5)
    p.add_argument("--round-to", type=int, default=16)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--out", required=True)
    args = p.parse_args()
    torch.set_num_threads(2)

    data = np.load(args.data)
    images = torch.from_numpy(data["image"])
    labels = torch.from_numpy(data["label"])
    net = load(args.model)
    with torch.no_grad():
        diff = float((net(images) - torch.from_numpy(np.load(args.reference))).abs().max())
    print(f"rebuilt module against reference_logits.npy: max abs diff {diff:.2e}")
    if diff > 1e-4:
        print("the rebuilt module does not reproduce the model; stopping", file=sys.stderr)
        return 1

    def prune(model):
        pruner = tp.pruner.MetaPruner(model, torch.zeros(1, 1, 28, 28), importance=tp.importance.MagnitudeImportance(p=2),
                                      pruning_ratio=args.ratio, ignored_layers=[model.conv1, model.fc2],
                                      round_to=args.round_to)
        pruner.step()
        return model

    magnitude = prune(copy.deepcopy(net))
    print(f"torch-pruning {tp.__version__}, MagnitudeImportance(p=2), ratio {args.ratio}, round_to {args.round_to}: "
          f"conv2 {magnitude.conv2.out_channels} channels, fc1 {magnitude.fc1.out_features} neurons")
    export(magnitude, f"{args.out}/tp-magnitude.onnx")
    cal = slice(0, args.cal_rows)
    tuned = fine_tune(prune(copy.deepcopy(net)), images[cal], labels[cal], args.epochs, seed=0)
    export(tuned, f"{args.out}/tp-magnitude-finetuned.onnx")
    print(f"fine-tuned {args.epochs} epochs (Adam 1e-3, batch 64) on rows 0..{args.cal_rows - 1} with their labels")
    return 0


if __name__ == "__main__":
    sys.exit(main())
