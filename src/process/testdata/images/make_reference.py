#!/usr/bin/python3
"""Makes the test images of hone_image (src/process/image_stage_test.cc) and the pixels PIL + numpy give for them.

Writes, next to this script:
  - small PNG and JPEG files, drawn from fixed formulas and a seeded generator: 8-bit gray (with and without a
    transparent gray level), 1-bit gray, RGB, RGBA, palette with a transparent entry, 16-bit gray and RGB,
    Adam7-interlaced RGB (PNG); gray, colour, progressive colour and CMYK (JPEG; hone refuses CMYK); and two bombs, a
    PNG whose header claims 100000 x 100000 pixels and a JPEG claiming 65000 x 65000.
    PIL writes what it can; a few lines of zlib write the PNGs PIL cannot (16-bit RGB, interlaced, the bomb).
  - reference.json: the cases the C++ test runs, each an image, the stage's parameters and the .npy it must match.
  - <case>.npy: float32 [1, C, H, W] (or NHWC), what torchvision's usual pipeline gives:
    Image.open -> convert("L" or "RGB") -> resize (BILINEAR or NEAREST; for resize shorter_side, Resize(N) then
    CenterCrop as torchvision computes them) -> numpy -> channels reversed for bgr -> (x * scale - mean) / std.

One exception to "what PIL does": a 16-bit grayscale PNG opens as PIL mode I;16, whose convert("L") clips every
value above 255 to 255 (white) rather than scaling; hone keeps the high byte, as libpng's png_set_strip_16 and PIL's
own 16-bit RGB path do, so the reference for that image is (value >> 8), computed with numpy.

Run with Debian's python3-pil and python3-numpy: /usr/bin/python3 src/process/testdata/images/make_reference.py
The JPEG files depend on the encoder's version; the references are computed from the files as written, so rerun
the whole script rather than part of it.
"""

from __future__ import annotations

import json
import pathlib
import struct
import zlib

import numpy as np
from PIL import Image

HERE = pathlib.Path(__file__).resolve().parent
SCALE = "0.00392156862745098"  # 1/255


def pattern(h: int, w: int, channels: int, seed: int) -> np.ndarray:
    """Smooth waves, a sharp-edged block and noise: both gentle gradients and edges for the resampling to get
    right."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    planes = []
    for c in range(channels):
        v = 128 + 90 * np.sin(x / (3.0 + c) + y / 7.0) * np.cos(y / (4.0 + c))
        v[h // 4: h // 2, w // 3: w // 2] = 30 + 200 * (c % 2)
        v += rng.normal(0, 12, size=(h, w))
        planes.append(v)
    out = np.clip(np.rint(np.stack(planes, axis=-1)), 0, 255).astype(np.uint8)
    return out[..., 0] if channels == 1 else out


def png_chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)


ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def write_png(path: pathlib.Path, a: np.ndarray, color_type: int, interlace: bool = False) -> None:
    """A PNG of 8- or 16-bit samples (filter type 0 on every row), Adam7-interlaced when asked."""
    h, w = a.shape[:2]
    depth = 16 if a.dtype == np.uint16 else 8
    if depth == 16:
        a = a.astype(">u2")
    passes = ADAM7 if interlace else [(0, 0, 1, 1)]
    raw = b""
    for x0, y0, dx, dy in passes:
        sub = a[y0::dy, x0::dx]
        if sub.shape[0] == 0 or sub.shape[1] == 0:
            continue  # an empty pass has no rows, not even filter bytes
        raw += b"".join(b"\x00" + row.tobytes() for row in sub)
    ihdr = struct.pack(">IIBBBBB", w, h, depth, color_type, 0, 0, 1 if interlace else 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) + png_chunk(b"IDAT", zlib.compress(raw, 9)) +
                     png_chunk(b"IEND", b""))


def make_images() -> dict[str, np.ndarray]:
    """Writes the images; returns the arrays whose decoded pixels are not simply what PIL reads back."""
    Image.fromarray(pattern(17, 23, 1, 1), "L").save(HERE / "gray.png")
    Image.fromarray(pattern(9, 10, 1, 13), "L").save(HERE / "gray_trns.png", transparency=0)  # a tRNS gray level
    Image.fromarray(pattern(13, 11, 1, 2) > 128).save(HERE / "gray1.png")  # mode "1": a 1-bit PNG
    Image.fromarray(pattern(24, 32, 3, 3), "RGB").save(HERE / "rgb.png")
    Image.fromarray(np.dstack([pattern(15, 20, 3, 4), pattern(15, 20, 1, 5)]), "RGBA").save(HERE / "rgba.png")
    palette = Image.fromarray(pattern(13, 19, 3, 6), "RGB").quantize(colors=16)
    palette.save(HERE / "palette.png", transparency=0)  # a tRNS entry: hone ignores it as convert("RGB") does
    g8 = pattern(12, 16, 1, 7).astype(np.uint16)
    gray16 = g8 * 256 + 100 + g8 // 2  # a low byte that varies, and no overflow
    write_png(HERE / "gray16.png", gray16, color_type=0)
    rgb16 = pattern(10, 14, 3, 8).astype(np.uint16) * 256 + np.uint16(200)
    write_png(HERE / "rgb16.png", rgb16, color_type=2)
    write_png(HERE / "interlaced.png", pattern(14, 21, 3, 9), color_type=2, interlace=True)
    Image.fromarray(pattern(18, 24, 1, 10), "L").save(HERE / "gray.jpg", quality=90)
    Image.fromarray(pattern(24, 32, 3, 11), "RGB").save(HERE / "rgb.jpg", quality=90)
    Image.fromarray(pattern(24, 32, 3, 12), "RGB").save(HERE / "progressive.jpg", quality=85, progressive=True)
    Image.fromarray(pattern(8, 8, 3, 14), "RGB").convert("CMYK").save(HERE / "cmyk.jpg")  # refused by hone

    # The bombs: tiny files whose headers claim far more pixels than max_pixels allows.
    bomb = struct.pack(">IIBBBBB", 100000, 100000, 8, 0, 0, 0, 0)
    (HERE / "bomb.png").write_bytes(b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", bomb) +
                                    png_chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + png_chunk(b"IEND", b""))
    jpeg = bytearray((HERE / "rgb.jpg").read_bytes())
    sof = jpeg.index(b"\xff\xc0")  # baseline frame header: length (2), precision (1), height (2), width (2)
    jpeg[sof + 5: sof + 9] = struct.pack(">HH", 65000, 65000)
    (HERE / "bomb.jpg").write_bytes(bytes(jpeg))

    # PIL's convert("L") on I;16 clips; hone keeps the high byte (see the docstring).
    assert (np.asarray(Image.open(HERE / "rgb16.png")) == (rgb16 >> 8)).all(), "PIL's 16-bit RGB path changed"
    return {"gray16.png": (gray16 >> 8).astype(np.uint8)}


def torchvision_resize_crop(im: Image.Image, n: int, w: int, h: int, resample) -> Image.Image:
    """Resize(n) (the shorter side to n, the longer scaled and truncated) then CenterCrop((h, w)), computed as
    torchvision computes them (the crop offset rounded with Python's round, half to even)."""
    iw, ih = im.size
    if iw <= ih:
        size = (n, int(n * ih / iw))
    else:
        size = (int(n * iw / ih), n)
    im = im.resize(size, resample)
    left = int(round((size[0] - w) / 2.0))
    top = int(round((size[1] - h) / 2.0))
    return im.crop((left, top, left + w, top + h))


def reference(image: str, params: dict[str, str], special: dict[str, np.ndarray]) -> np.ndarray:
    color = params.get("color", "rgb")
    mode = "L" if color == "gray" else "RGB"
    im = Image.fromarray(special[image]) if image in special else Image.open(HERE / image)
    im = im.convert(mode)
    resample = Image.NEAREST if params.get("interpolation") == "nearest" else Image.BILINEAR
    w, h = int(params["width"]), int(params["height"])
    if params.get("resize", "exact") == "exact":
        im = im.resize((w, h), resample)
    else:
        im = torchvision_resize_crop(im, int(params["shorter_side"]), w, h, resample)
    a = np.asarray(im, dtype=np.float64)
    if a.ndim == 2:
        a = a[..., None]
    if color == "bgr":
        a = a[..., ::-1]
    channels = a.shape[-1]
    mean = np.array([float(v) for v in params.get("mean", ",".join(["0"] * channels)).split(",")])
    std = np.array([float(v) for v in params.get("std", ",".join(["1"] * channels)).split(",")])
    a = (a * float(params.get("scale", SCALE)) - mean) / std
    if params.get("layout", "nchw") == "nchw":
        a = a.transpose(2, 0, 1)
    return a[None].astype(np.float32)


def size_of(image: str) -> dict[str, str]:
    w, h = Image.open(HERE / image).size
    return {"width": str(w), "height": str(h)}


IMAGENET = {"mean": "0.485,0.456,0.406", "std": "0.229,0.224,0.225"}


def cases() -> list[tuple[str, str, dict[str, str]]]:
    out = []
    # Decoding alone: every image at its own size (no resampling), as rgb and as gray.
    for image in ["gray.png", "gray_trns.png", "gray1.png", "rgb.png", "rgba.png", "palette.png", "gray16.png",
                  "rgb16.png", "interlaced.png", "gray.jpg", "rgb.jpg", "progressive.jpg"]:
        stem = image.replace(".", "_")
        out.append((f"decode_{stem}_rgb", image, size_of(image)))
        out.append((f"decode_{stem}_gray", image, {**size_of(image), "color": "gray"}))
    # Resampling: bilinear down (antialiased) and up, nearest down and up, shorter side + centre crop.
    out += [
        ("bilinear_down_rgb_png", "rgb.png", {"width": "13", "height": "10"}),
        ("bilinear_down_rgb_jpg", "rgb.jpg", {"width": "16", "height": "7"}),
        ("bilinear_down_gray_png", "gray.png", {"width": "8", "height": "9", "color": "gray", "mean": "0.5",
                                               "std": "0.25"}),
        ("bilinear_up_gray_png", "gray.png", {"width": "31", "height": "29", "color": "gray"}),
        ("bilinear_mixed_rgba", "rgba.png", {"width": "33", "height": "6"}),
        ("nearest_down_rgb_png", "rgb.png", {"width": "13", "height": "11", "interpolation": "nearest"}),
        ("nearest_up_palette", "palette.png", {"width": "40", "height": "27", "interpolation": "nearest"}),
        # 32x24 -> shorter side 20 -> 26x20, crop 15x15 at (6, 2): both offsets x.5, rounded half to even.
        ("shorter_side_crop_rgb_png", "rgb.png", {"width": "15", "height": "15", "resize": "shorter_side",
                                                  "shorter_side": "20"}),
        ("shorter_side_crop_gray_jpg", "gray.jpg", {"width": "12", "height": "10", "resize": "shorter_side",
                                                    "shorter_side": "16", "color": "gray"}),
        ("imagenet_bgr_nhwc", "rgb.jpg", {"width": "16", "height": "12", "color": "bgr", "layout": "nhwc",
                                          **IMAGENET}),
        ("imagenet_rgb_nchw", "interlaced.png", {"width": "10", "height": "10", "resize": "shorter_side",
                                                 "shorter_side": "12", **IMAGENET}),
        ("jpeg_to_gray_scaled", "rgb.jpg", {"width": "20", "height": "15", "color": "gray", "scale": "1"}),
    ]
    return out


def main() -> None:
    special = make_images()
    listed = []
    for name, image, params in cases():
        np.save(HERE / f"{name}.npy", reference(image, params, special))
        listed.append({"name": name, "image": image, "parameters": params})
    (HERE / "reference.json").write_text(json.dumps({"cases": listed}, indent=1) + "\n")
    print(f"wrote {len(listed)} cases to {HERE}")


if __name__ == "__main__":
    main()
