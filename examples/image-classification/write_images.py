#!/usr/bin/python3
"""Writes the first COUNT images of models/fashion_mnist/test.npz as image files, for the image-classification
example and tests/python/test_image_classification.py:

  OUT/png/NNNNN_labelL.png    8-bit grayscale PNG, lossless: exactly the .npz pixels (each is a byte / 255)
  OUT/jpeg/NNNNN_labelL.jpg   8-bit grayscale JPEG, quality 90 (lossy: pixels differ from the .npz by a few levels)

  OUT/labels.txt              the true labels in the files' order, one a line (hone evaluate --labels-file)
NNNNN is the row of test.npz, L its true label (0..9, the model's class order). Run by scripts/fetch-models with
Debian's /usr/bin/python3 (python3-numpy, python3-pil); OUT must not hold png/ or jpeg/ yet.
"""

from __future__ import annotations

import argparse
import pathlib

import numpy as np
from PIL import Image

JPEG_QUALITY = 90


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--npz", type=pathlib.Path, required=True)
    parser.add_argument("--out", type=pathlib.Path, required=True)
    parser.add_argument("--count", type=int, default=1000)
    args = parser.parse_args()

    data = np.load(args.npz)
    images, labels = data["image"][: args.count], data["label"][: args.count]
    pixels = np.rint(images * 255.0).astype(np.uint8)
    # The PNGs must be the model's inputs exactly: every .npz value is a byte divided by 255 in float32.
    if not np.array_equal(pixels.astype(np.float32) / np.float32(255.0), images):
        raise SystemExit(f"{args.npz}: pixels are not whole bytes / 255; a PNG could not hold them exactly")
    (args.out / "png").mkdir(parents=True)
    (args.out / "jpeg").mkdir()
    for row, (image, label) in enumerate(zip(pixels, labels)):
        stem = f"{row:05d}_label{int(label)}"
        picture = Image.fromarray(image[0], "L")
        picture.save(args.out / "png" / f"{stem}.png")
        picture.save(args.out / "jpeg" / f"{stem}.jpg", quality=JPEG_QUALITY)
    # The true labels in the files' (sorted) order, one a line: `hone evaluate --labels-file` reads them.
    (args.out / "labels.txt").write_text("".join(f"{int(label)}\n" for label in labels))
    print(f"wrote {len(pixels)} PNG and {len(pixels)} JPEG files and labels.txt to {args.out}")


if __name__ == "__main__":
    main()
