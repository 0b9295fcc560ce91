"""Writes data/digits/digits.safetensors: scikit-learn's copy of the UCI optical recognition of
handwritten digits test set (1,797 images of 8x8 pixels, values 0..16; CC BY 4.0), the data set
`webtensor train` and the demo page's training section learn.

    python3 -m venv /tmp/skenv && /tmp/skenv/bin/pip install scikit-learn
    /tmp/skenv/bin/python scripts/gen_digits.py

The file is a plain .safetensors (written by hand here, so the script needs no PyTorch):
`images` u8 [1797, 8, 8] and `labels` u8 [1797], in scikit-learn's order, with the source and
licence in the metadata. webtensor loads it with `load_safetensors` as any checkpoint.
"""

import json
import os
import struct

from sklearn.datasets import load_digits

OUT = os.path.join(os.path.dirname(__file__), "..", "data", "digits", "digits.safetensors")


def main() -> None:
    d = load_digits()
    images = d.images.astype("uint8")  # 0..16, exact (the CSV holds integers)
    assert (images == d.images).all() and images.shape == (1797, 8, 8)
    labels = d.target.astype("uint8")
    assert labels.shape == (1797,) and labels.max() == 9
    img_bytes, lab_bytes = images.tobytes(), labels.tobytes()
    header = {
        "__metadata__": {
            "name": "UCI ML optical recognition of handwritten digits (test set), scikit-learn copy",
            "source": "https://archive.ics.uci.edu/dataset/80 via sklearn.datasets.load_digits",
            "creators": "E. Alpaydin, C. Kaynak",
            "license": "CC BY 4.0",
            "pixels": "8x8, integer counts 0..16",
        },
        "images": {"dtype": "U8", "shape": [1797, 8, 8], "data_offsets": [0, len(img_bytes)]},
        "labels": {
            "dtype": "U8",
            "shape": [1797],
            "data_offsets": [len(img_bytes), len(img_bytes) + len(lab_bytes)],
        },
    }
    text = json.dumps(header, separators=(",", ":"), sort_keys=True).encode()
    text += b" " * (-len(text) % 8)  # the format pads the header to 8 bytes
    with open(OUT, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + img_bytes + lab_bytes)
    print(f"wrote {OUT}: {len(images)} images, class counts {list(map(int, (labels[:, None] == range(10)).sum(0)))}")


if __name__ == "__main__":
    main()
