// hone_image: encoded images (PNG or JPEG files, any mix in one batch) to the float pixels a vision model takes, as
// torchvision's usual PIL pipeline makes them: Image.open -> convert("RGB" or "L") -> Resize -> CenterCrop ->
// ToTensor -> Normalize. Decoding is image_decode.h's (libjpeg-turbo, libpng), resampling image_resize.h's (PIL's
// antialiased bilinear, or nearest).
//
//   input    image BYTES [batch, 1]: the bytes of one PNG or JPEG file per row
//   output   pixels FP32 [batch, C, height, width] (layout nchw) or [batch, height, width, C] (nhwc); C is 1 for
//            gray, 3 for rgb and bgr
//   parameters
//     width, height   the output's size in pixels (required, 1 to 16384)
//     resize          exact (default: scale to width x height, whatever the aspect ratio) or shorter_side (scale
//                     the shorter side to `shorter_side` keeping the aspect ratio, then crop width x height from the
//                     centre: torchvision's Resize(shorter_side) + CenterCrop((height, width)))
//     shorter_side    with resize shorter_side only: at least width and height (e.g. 256 for a 224 crop)
//     interpolation   bilinear (default: PIL's, antialiased when reducing) or nearest
//     color           rgb (default), bgr (the same, channels reversed) or gray (ITU-R 601-2 luma, PIL's "L");
//                     gray files become RGB by repeating the sample, RGB files gray by the luma formula
//     layout          nchw (default) or nhwc
//     scale           a positive decimal each 8-bit sample is multiplied by (default 1/255: pixels in [0, 1])
//     mean, std       comma-separated decimals, one per output channel in the output's order (default 0 and 1):
//                     pixels = (sample * scale - mean) / std, e.g. ImageNet's "0.485,0.456,0.406" and
//                     "0.229,0.224,0.225" with the default scale
//     max_pixels      the most pixels (width times height) a file may claim (default 40000000): larger files are
//                     refused from their header, before any pixel memory is allocated (decompression bombs)
//
// Bad data (an empty row, another format, a truncated or corrupt file, a file over max_pixels) is InvalidArgument
// naming the input and the row: "input 'image' row 2: JPEG data is truncated".
#pragma once

#include <memory>

#include "process/stage.h"

namespace hone::process {

Result<std::unique_ptr<Stage>> CreateImageStage(const StageConfig& config);

}  // namespace hone::process
