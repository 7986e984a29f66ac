#!/usr/bin/python3
"""Seeds for the SDK fuzz harnesses (tests/fuzz/fuzz_sdk_model.c, fuzz_sdk_image.c), from the
SDK tests' model directories and images, in each harness's input format.

    /usr/bin/python3 tests/fuzz/gen_sdk_seeds.py MODEL_DIRS MODEL_OUT IMAGE_OUT

MODEL_DIRS holds the directories tests/gen_sdk_models.py writes (cls, det, yolo, mask, maskfull, seg, pose, simcc, rec, textdet,
rotated); the digits
demo's JSON (examples/sdk/digits) is added. `make fuzz-corpus` calls it; the hostile cases
written under tests/fuzz/regress (sdk_model_*, sdk_image_*) came from it too and `make test`
replays them: --regress DIR writes those alone.
"""
import json
import os
import struct
import sys
import zlib

import cv2
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def model_seed(deploy, pipeline):
    return json.dumps(deploy).encode() + b"\0" + json.dumps(pipeline).encode()


def model_seeds(dirs):
    out = {}
    sources = [os.path.join(dirs, t) for t in ("cls", "det", "yolo", "mask", "maskfull", "seg", "pose", "simcc", "rec",
                                               "textdet", "rotated")] + \
        [os.path.join(ROOT, "examples", "sdk", "digits")]
    for d in sources:
        if not os.path.exists(os.path.join(d, "pipeline.json")):
            continue
        with open(os.path.join(d, "deploy.json")) as f:
            deploy = json.load(f)
        with open(os.path.join(d, "pipeline.json")) as f:
            pipeline = json.load(f)
        name = os.path.basename(d)
        out[name] = model_seed(deploy, pipeline)
        for task in pipeline["pipeline"]["tasks"]:
            if task.get("component") == "ResizeMask":
                task["params"]["with_argmax"] = False
                out[name + "_scores"] = model_seed(deploy, pipeline)
    return out


def png(h, w, color_type, body=True):
    ihdr = struct.pack(">IIBBBBB", w, h, 8, color_type, 0, 0, 0)
    data = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(">I", zlib.crc32(b"IHDR" + ihdr))
    if body:
        ch = {0: 1, 2: 3, 6: 4}[color_type]
        raw = b"".join(b"\0" + bytes((x * 7 + y * 3) & 255 for x in range(w * ch)) for y in range(h))
        z = zlib.compress(raw)
        data += struct.pack(">I", len(z)) + b"IDAT" + z + struct.pack(">I", zlib.crc32(b"IDAT" + z))
        data += struct.pack(">I", 0) + b"IEND" + struct.pack(">I", zlib.crc32(b"IEND"))
    return data


def raw(pipeline, fmt, h, w, channels=0, pixels=b"\x10\x80\xf0"):
    return bytes([pipeline, 1, fmt | channels << 3]) + struct.pack("<hh", h, w) + pixels


def image_seeds():
    out = {}
    img = np.fromfunction(lambda y, x, c: (x * 9 + y * 5 + c * 60) % 256, (30, 41, 3)).astype(np.uint8)
    encoded = {"png": cv2.imencode(".png", img)[1].tobytes(), "jpg": cv2.imencode(".jpg", img)[1].tobytes(),
               "bmp": cv2.imencode(".bmp", img)[1].tobytes(),
               "gray_png": cv2.imencode(".png", img[:, :, 0])[1].tobytes(),
               "one_px_png": png(1, 1, 2), "row_png": png(1, 50, 6), "column_png": png(40, 1, 0)}
    with open(os.path.join(ROOT, "examples", "images", "digit_4_0.png"), "rb") as f:
        encoded["digit_png"] = f.read()
    for i, (name, data) in enumerate(sorted(encoded.items())):
        out["enc_" + name] = bytes([i % 9, 0]) + data
    for i, (name, data) in enumerate(sorted(regress_images().items())):
        out[name] = data
    fmts = dict(bgr=0, rgb=1, gray=2, nv12=3, nv21=4, bgra=5)
    for p in range(9):
        out["raw_%d_bgr_7x11" % p] = raw(p, 0, 7, 11, pixels=img[:7, :11].tobytes())
    out["raw_nv12_4x6"] = raw(1, fmts["nv12"], 4, 6, pixels=bytes(range(36)))
    out["raw_nv21_2x2"] = raw(2, fmts["nv21"], 2, 2, pixels=bytes(range(6)))
    out["raw_bgra_3x5"] = raw(4, fmts["bgra"], 3, 5, pixels=bytes(range(60)))
    out["raw_gray_1x300"] = raw(5, fmts["gray"], 1, 300)
    return out


def regress_images():
    """The odd images the issue names, kept as regression inputs: one pixel, one row, one
    column, sizes declared past the limits, truncated files."""
    img = np.fromfunction(lambda y, x, c: (x * 9 + y * 5 + c * 60) % 256, (30, 41, 3)).astype(np.uint8)
    jpg, pngb = cv2.imencode(".jpg", img)[1].tobytes(), cv2.imencode(".png", img)[1].tobytes()
    return {
        "sdk_image_raw_1x1": raw(0, 0, 1, 1),
        "sdk_image_raw_1x1000": raw(1, 0, 1, 1000),
        "sdk_image_raw_1000x1": raw(3, 2, 1000, 1),
        "sdk_image_raw_huge_declared": raw(0, 0, 20000, 20000),
        "sdk_image_raw_negative_height": raw(2, 0, -3, 4),
        "sdk_image_raw_nv12_odd": raw(1, 3, 3, 5),
        "sdk_image_raw_wrong_channels": raw(0, 5, 4, 4, channels=3),
        "sdk_image_png_huge_declared_gray": bytes([0, 0]) + png(20000, 20000, 0, body=False),
        "sdk_image_png_huge_declared_rgb": bytes([1, 0]) + png(20000, 20000, 2, body=False),
        "sdk_image_png_truncated": bytes([2, 0]) + pngb[:len(pngb) // 2],
        "sdk_image_jpg_truncated": bytes([3, 0]) + jpg[:len(jpg) // 2],
        "sdk_image_jpg_header_only": bytes([4, 0]) + jpg[:20],
    }


def regress_models(seeds):
    """Hostile directories kept as regression inputs."""
    cls = seeds["cls"].split(b"\0")
    deploy, pipeline = json.loads(cls[0]), json.loads(cls[1])

    def edit(fn):
        d, p = json.loads(json.dumps(deploy)), json.loads(json.dumps(pipeline))
        fn(d, p)
        return model_seed(d, p)

    def transforms(p):
        return next(t for t in p["pipeline"]["tasks"] if t.get("module") == "Transform")["transforms"]

    # The text detector with its map made busy: Normalize's mean between the pattern's values
    # and a zero mask threshold, so that the first channel thresholds into many borders.
    tdeploy, tpipeline = (json.loads(x) for x in seeds["textdet"].split(b"\0"))
    transforms(tpipeline)[2].update(mean=[128, 128, 128], std=[1, 1, 1], to_rgb=False)
    tpipeline["pipeline"]["tasks"][2]["params"].update(mask_thr=0, unclip_ratio=1000)
    # Trailing spaces make the length pick the harness's 64 x 48 image.
    busy = model_seed(tdeploy, tpipeline)

    # ResizeInstanceMask both ways (RoI masks warped, whole-input masks resized) on the 64 x 48
    # image resized to 80 x 60 (within the harness's pixel limit), the harness's masks network
    # giving boxes partly outside it (score_thr 0 keeps its small scores).
    masks = {}
    for kind in ("mask", "maskfull"):
        mdeploy, mpipeline = (json.loads(x) for x in seeds[kind].split(b"\0"))
        transforms(mpipeline)[1].update(size=[80, 60])
        mpipeline["pipeline"]["tasks"][2]["params"].update(score_thr=0)
        seed = model_seed(mdeploy, mpipeline)
        masks["sdk_model_instance_" + kind] = seed + b" " * ((4 - len(seed)) % 5)

    return {
        **masks,
        "sdk_model_resize_huge": edit(lambda d, p: transforms(p)[1].update(size=[1000000, -1])),
        "sdk_model_resize_past_limit": edit(lambda d, p: transforms(p)[1].update(size=[1024, 1024], keep_ratio=False)),
        "sdk_model_topk_huge": edit(lambda d, p: next(t for t in p["pipeline"]["tasks"] if t.get("module") == "mmcls")
                                    ["params"].update(topk=1 << 20)),
        "sdk_model_transforms_many": edit(lambda d, p: transforms(p).extend([{"type": "Collect"}] * 40)),
        "sdk_model_pad_divisor": edit(lambda d, p: transforms(p).insert(3, {"type": "Pad", "size_divisor": 4096})),
        "sdk_model_no_pipeline": json.dumps(deploy).encode(),
        "sdk_model_nested": b"[" * 5000 + b"\0" + b"{\"pipeline\":" * 2000,
        "sdk_model_textdet_busy_map": busy + b" " * ((4 - len(busy)) % 5),
    }


def write(out_dir, items):
    os.makedirs(out_dir, exist_ok=True)
    for name, data in items.items():
        with open(os.path.join(out_dir, name), "wb") as f:
            f.write(data)


def main(argv):
    if argv[0] == "--regress":
        seeds = model_seeds(os.path.join(ROOT, "build", "sdk_models"))
        write(argv[1], regress_models(seeds))
        write(argv[1], regress_images())
        return
    seeds = model_seeds(argv[0])
    seeds.update(regress_models(seeds))
    write(argv[1], seeds)
    write(argv[2], image_seeds())


if __name__ == "__main__":
    main(sys.argv[1:])
