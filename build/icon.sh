#!/bin/sh
# Regenerates build/appicon.png (512x512): a ghost ("boo") with claw marks
# on a rounded purple square. Needs Debian's ImageMagick 6 (/usr/bin/convert).
set -eu
C=/usr/bin/convert
out=$(dirname "$0")/appicon.png
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
$C -size 512x512 gradient:'#8b5cf6-#2b1d5c' "$tmp/grad.png"
$C -size 512x512 xc:black -fill white -draw "roundrectangle 16,16 495,495 100,100" "$tmp/mask.png"
$C "$tmp/grad.png" "$tmp/mask.png" -alpha off -compose CopyOpacity -composite "$tmp/bg.png"
$C "$tmp/bg.png" -fill white -stroke none \
	-draw "path 'M 146,270 A 110,110 0 0 1 366,270 L 366,410 L 329,380 L 292,410 L 256,380 L 220,410 L 183,380 L 146,410 Z'" \
	-fill '#2b1d5c' -draw "ellipse 214,268 20,28 0,360" -draw "ellipse 298,268 20,28 0,360" \
	-fill none -stroke '#ffd54f' -strokewidth 16 \
	-draw "stroke-linecap round line 352,84 404,196" \
	-draw "stroke-linecap round line 392,76 438,176" \
	-draw "stroke-linecap round line 322,104 364,200" \
	-depth 8 -strip "$out"
