#!/usr/bin/env python3
"""Writes the images of Tests/CourierImagesTests/Fixtures, which are committed.

Needs Pillow and pypng (pip install pillow pypng); run it again only to change the fixtures.
Every image but the hostile ones shows the same picture, so that a test can check where each
colour ends up: 640x480 pixels in four quadrants, red at the top left, green at the top right,
blue at the bottom left and white at the bottom right.
"""
import io
import os
import struct
import zlib

import png
from PIL import Image

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "CourierImagesTests", "Fixtures")
COLOURS = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255)]


def quadrants(width=640, height=480):
    image = Image.new("RGB", (width, height))
    for index, colour in enumerate(COLOURS):
        left = (index % 2) * width // 2
        top = (index // 2) * height // 2
        image.paste(colour, (left, top, left + width // 2, top + height // 2))
    return image


def save(name, data):
    with open(os.path.join(OUT, name), "wb") as file:
        file.write(data)


def jpeg(image, **options):
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=95, subsampling=0, **options)
    return buffer.getvalue()


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def main():
    os.makedirs(OUT, exist_ok=True)
    upright = quadrants()
    save("quadrants.jpg", jpeg(upright))
    save("quadrants-progressive.jpg", jpeg(upright, progressive=True))
    # Stored turned a quarter to the left, with EXIF orientation 6 ("turn right to show").
    exif = Image.Exif()
    exif[0x0112] = 6
    save("quadrants-orientation-6.jpg", jpeg(upright.rotate(90, expand=True), exif=exif.tobytes()))
    save("quadrants-cmyk.jpg", jpeg(upright.convert("CMYK")))
    save("grey.jpg", jpeg(Image.new("L", (300, 200), 128)))

    # PNGs: RGBA with the right half half transparent, 16-bit RGB, a palette with a transparent
    # entry, and the same RGBA picture interlaced (Adam7).
    rgba = []
    for y in range(480):
        row = []
        for x in range(640):
            r, g, b = COLOURS[(y >= 240) * 2 + (x >= 320)]
            row += [r, g, b, 128 if x >= 320 else 255]
        rgba.append(row)
    for name, interlace in (("quadrants-rgba.png", False), ("quadrants-interlaced.png", True)):
        buffer = io.BytesIO()
        png.Writer(640, 480, greyscale=False, alpha=True, interlace=interlace).write(buffer, rgba)
        save(name, buffer.getvalue())
    buffer = io.BytesIO()
    rows16 = [[v * 257 for i, v in enumerate(row) if i % 4 != 3] for row in rgba]
    png.Writer(640, 480, greyscale=False, bitdepth=16).write(buffer, rows16)
    save("quadrants-16bit.png", buffer.getvalue())
    palette = [(255, 0, 0, 255), (0, 255, 0, 255), (0, 0, 255, 255), (255, 255, 255, 0)]
    indices = [[(y >= 240) * 2 + (x >= 320) for x in range(640)] for y in range(480)]
    buffer = io.BytesIO()
    png.Writer(640, 480, palette=palette, bitdepth=2).write(buffer, indices)
    save("quadrants-palette.png", buffer.getvalue())

    # Hostile: a PNG that claims 100,000 x 100,000 pixels in a few dozen bytes.
    header = struct.pack(">IIBBBBB", 100_000, 100_000, 8, 6, 0, 0, 0)
    data = zlib.compress(b"\x00" * 64)
    save("huge.png", b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b""))


if __name__ == "__main__":
    main()
