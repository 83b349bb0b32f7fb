"""Script a small module, look at its graph and code, run it, save it and load it back."""
import numpy as np

import tsjit
from tsjit import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.scale = 2

    def forward(self, x: tsjit.Tensor, n: int) -> tsjit.Tensor:
        y = tsjit.relu(self.fc(x))
        i = 0
        while i < n:
            if i % 2 == 0:
                y = y * self.scale
            else:
                y = y + 1.0
            i += 1
        return y


m = tsjit.script(Net())
print(m.graph)                 # PyTorch-style graph text with prim::Loop / prim::If blocks
print(m.code)                  # readable Python, like PyTorch's ScriptModule.code
x = tsjit.from_numpy(np.ones((2, 4), np.float32))
y = m(x, 5)                    # y.numpy() is a float32 array
tsjit.save(m, "net.pt")
assert np.allclose(tsjit.load("net.pt")(x, 5).numpy(), y.numpy())
print("ok: net.pt saved, loaded and run;", y.numpy().dtype, y.numpy().shape)
