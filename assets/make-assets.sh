#!/usr/bin/env bash
# Regenerates the example images used by Pipelines/ and Presets/, with nothing but the ffmpeg CLI
# (lavfi `color` source, `geq` for shapes, `drawtext` for lettering).
#
#   assets/make-assets.sh            # writes the PNGs next to this script
#
# Needs: ffmpeg built with libfreetype and fontconfig, and the DejaVu fonts
# (Debian/Ubuntu: apt-get install ffmpeg fonts-dejavu-core).
#
#   studio.png          1280x720  virtual background: a stage wall with three spotlights
#   presenter-green.png 1280x720  a person-like figure on pure #00FF00, to try chroma keying
#   avatar.png           400x400  RGBA, a friendly round face, transparent outside the circle
#   logo.png             320x120  RGBA, "onair" with a red on-air dot, transparent background
#   slate.png           1280x720  "We'll be right back", shown while an input is lost
#   starting-soon.png   1280x720  "Starting soon", the holding picture of Pipelines/evening.yaml
#   brb.mp4             640x360   10 s "Be right back" clip with a 660 Hz tone, played by its schedule
set -euo pipefail
cd "$(dirname "$0")"

command -v ffmpeg >/dev/null || { echo "make-assets: ffmpeg not found" >&2; exit 1; }
command -v fc-match >/dev/null || { echo "make-assets: fc-match (fontconfig) not found" >&2; exit 1; }
FONT_BOLD=$(fc-match -f '%{file}' 'DejaVu Sans:bold')
FONT_BOOK=$(fc-match -f '%{file}' 'DejaVu Sans')

# ffmpeg wrapper: one frame in, one PNG out, quiet, best PNG prediction.
render() { # render OUT FILTERGRAPH (the graph starts from a lavfi source)
  ffmpeg -hide_banner -loglevel error -y -f lavfi -i "$2" -frames:v 1 -pred mixed -update 1 "$1"
  printf '%-20s %6d bytes\n' "$1" "$(wc -c <"$1")"
}

# --- tiny vector painter on top of geq ---------------------------------------------------------
# Shapes are "coverage" expressions (0 outside, 1 inside, a one-pixel ramp on the edge, which
# anti-aliases without supersampling). paint() stacks layers of "COVERAGE|#RRGGBB|OPACITY" over a
# base colour and prints a geq option string r=…:g=…:b=… (register 0 = colour, 1 = coverage).
circle()  { echo "clip($3-hypot(X-$1,Y-$2)+0.5,0,1)"; }                       # cx cy r
ellipse() { echo "clip(0.5-(hypot((X-$1)/$3,(Y-$2)/$4)-1)*$(( $3 < $4 ? $3 : $4 )),0,1)"; }  # cx cy a b
below()   { echo "clip(Y-($1)+0.5,0,1)"; }                                    # Y > expr
above()   { echo "clip(($1)-Y+0.5,0,1)"; }                                    # Y < expr
channel() { # channel HEX INDEX(0=r 1=g 2=b)
  local hex=${1#\#}; echo $(( 16#${hex:$(( $2 * 2 )):2} ))
}
paint() { # paint BASE_HEX LAYER...
  local base=$1; shift
  local out="" c
  for c in 0 1 2; do
    local e="st(0,$(channel "$base" $c))" layer cov hex op
    for layer in "$@"; do
      IFS='|' read -r cov hex op <<<"$layer"
      e+=";st(1,($cov)*${op:-1});st(0,ld(0)+($(channel "$hex" $c)-ld(0))*ld(1))"
    done
    out+="${out:+:}$(echo r g b | cut -d' ' -f$((c + 1)))='$e;ld(0)'"
  done
  echo "$out"
}

# --- studio.png: a stylised stage ------------------------------------------------------------
# Row-wise gradients and flat shapes keep the PNG small (smooth 2-D gradients would not).
# Rendered at 2x and scaled down for clean edges on the light cones.
studio() {
  local pre
  # registers: 0 horizon y, 1 in a light cone, 2 floor fraction, 3 in a floor pool,
  #            4 on a panel seam, 5 wall fraction, 6 on a lamp housing, 7 on the skirting board
  pre="st(0,H*0.72)"
  pre+=";st(1,lt(abs(X-W*0.18),W*0.02+0.22*Y)+lt(abs(X-W*0.50),W*0.02+0.22*Y)+lt(abs(X-W*0.82),W*0.02+0.22*Y))"
  pre+=";st(2,(Y-ld(0))/(H-ld(0)))"
  pre+=";st(3,lt(pow((X-W*0.18)/(W*0.13),2)+pow((Y-H*0.80)/(H*0.045),2),1)+lt(pow((X-W*0.50)/(W*0.14),2)+pow((Y-H*0.81)/(H*0.05),2),1)+lt(pow((X-W*0.82)/(W*0.13),2)+pow((Y-H*0.80)/(H*0.045),2),1))"
  pre+=";st(4,lt(mod(X+W/16,W/8),W*0.004))"
  pre+=";st(5,Y/ld(0))"
  pre+=";st(6,lt(Y,H*0.035)*(lt(abs(X-W*0.18),W*0.03)+lt(abs(X-W*0.50),W*0.03)+lt(abs(X-W*0.82),W*0.03)))"
  pre+=";st(7,between(Y,ld(0),ld(0)+H*0.014))"
  # chan WALL_TOP WALL_BOTTOM CONE_ADD FLOOR_TOP FLOOR_BOTTOM POOL_ADD SKIRTING LAMP
  chan() {
    echo "$pre;if(ld(6),$8,if(ld(7),$7,if(lt(Y,ld(0)),($1+($2-$1)*ld(5)+$3*gt(ld(1),0)*(1-0.65*ld(5)))*(1-0.15*ld(4)),$4+($5-$4)*ld(2)+$6*gt(ld(3),0))))"
  }
  local r g b
  r=$(chan 22 40 90 74 26 40 92 40)
  g=$(chan 26 50 66 54 18 28 104 40)
  b=$(chan 56 98 30 60 22 16 150 48)
  render studio.png "color=c=black:s=2560x1440,format=rgb24,geq=r='$r':g='$g':b='$b',scale=1280:720:flags=area,
drawtext=fontfile=$FONT_BOLD:text='ON AIR':fontsize=26:fontcolor=white:box=1:boxcolor=0xC62828:boxborderw=10:x=W*0.34-tw/2:y=H*0.12"
}

# --- presenter-green.png: a figure to key out -------------------------------------------------
presenter() {
  local skin='#E8B18F' shade='#CF9474' hair='#3B2A25' shirt='#C8553D' face='#4A3030'
  local torso head vneck
  # shoulders: a superellipse, flat on top with rounded corners
  torso="clip(0.5-(pow(abs(X-640)/360,4)+pow(abs(Y-770)/310,2)-1)*120,0,1)"
  head=$(ellipse 640 300 100 122)
  vneck="clip(0.5-(Y-(560-2*abs(X-640)))/2.236,0,1)"   # the neck shows through this V
  render presenter-green.png "color=c=0x00FF00:s=1280x720,format=rgb24,geq=$(paint '#00FF00' \
    "$(ellipse 640 268 112 118)*$(above 340)|$hair" \
    "$(ellipse 640 470 55 110)|$shade" \
    "$(ellipse 541 308 18 30)|$shade" \
    "$(ellipse 739 308 18 30)|$shade" \
    "$torso*(1-$vneck)|$shirt" \
    "$head|$skin" \
    "$(ellipse 640 300 103 125)*$(above "222+14*sin((X-640)/22)")|$hair" \
    "$(ellipse 604 300 9 13)|$face" \
    "$(ellipse 676 300 9 13)|$face" \
    "clip(4-abs(hypot(X-640,Y-322)-38)+0.5,0,1)*$(below 338)|$face" \
    "$(ellipse 582 330 15 8)|#F08A7E|0.5" \
    "$(ellipse 698 330 15 8)|#F08A7E|0.5")"
}

# --- avatar.png: friendly round face, transparent corners -------------------------------------
avatar() {
  local ring='#FF7A59' face='#FFD166' ink='#3A2E39'
  local rgb
  rgb=$(paint "$ring" \
    "$(circle 200 200 176)|$face" \
    "$(ellipse 145 168 18 26)|$ink" \
    "$(ellipse 255 168 18 26)|$ink" \
    "$(circle 151 158 6)|#FFFFFF" \
    "$(circle 261 158 6)|#FFFFFF" \
    "$(ellipse 116 240 26 16)|#FF8FA3|0.8" \
    "$(ellipse 284 240 26 16)|#FF8FA3|0.8" \
    "clip(7-abs(hypot(X-200,Y-200)-92)+0.5,0,1)*$(below 235)|$ink" \
    "$(circle 285.1 235 7)|$ink" \
    "$(circle 114.9 235 7)|$ink")
  render avatar.png "color=c=black@0:s=400x400,format=rgba,geq=$rgb:a='255*$(circle 200 200 192)'"
}

# --- logo.png: red dot + "onair" --------------------------------------------------------------
logo() {
  render logo.png "color=c=black@0:s=320x120,format=rgba,
geq=r='229':g='57':b='53':a='255*max($(circle 50 60 21),0.45*clip(2-abs(hypot(X-50,Y-60)-30)+0.5,0,1))',
drawtext=fontfile=$FONT_BOLD:text=onair:fontsize=66:fontcolor=white:borderw=3:bordercolor=0x1A1A2E@0.85:x=94:y=(h-th)/2-4"
}

# --- slate.png: "We'll be right back" ---------------------------------------------------------
slate() {
  render slate.png "color=c=black:s=1280x720,format=rgb24,
geq=r='18+10*Y/H':g='20+12*Y/H':b='40+22*Y/H',
drawbox=x=(iw-360)/2:y=ih*0.62:w=360:h=4:color=0xE53935:t=fill,
drawtext=fontfile=$FONT_BOLD:text='We’ll be right back':fontsize=84:fontcolor=white:x=(w-tw)/2:y=h*0.62-th-40,
drawtext=fontfile=$FONT_BOOK:text='The stream resumes in a moment':fontsize=34:fontcolor=0xB8BFD8:x=(w-tw)/2:y=h*0.62+36"
}

# --- starting-soon.png: the holding picture before a show ------------------------------------
starting_soon() {
  render starting-soon.png "color=c=black:s=1280x720,format=rgb24,
geq=r='40+20*Y/H':g='18+10*Y/H':b='52+24*Y/H',
drawbox=x=(iw-360)/2:y=ih*0.42:w=360:h=4:color=0xE53935:t=fill,
drawtext=fontfile=$FONT_BOLD:text='Starting soon':fontsize=96:fontcolor=white:x=(w-tw)/2:y=h*0.42-th-40"
}

# --- brb.mp4: a short clip with sound, small enough to keep in git ---------------------------
brb() {
  ffmpeg -hide_banner -loglevel error -y \
    -f lavfi -i "color=c=0x1E3A5F:s=640x360:r=15:d=10,drawtext=fontfile=$FONT_BOLD:text='Be right back':fontsize=56:fontcolor=white:x=(w-tw)/2:y=(h-th)/2" \
    -f lavfi -i "sine=frequency=660:sample_rate=48000:duration=10" \
    -c:v libx264 -preset veryslow -crf 30 -g 150 -pix_fmt yuv420p -c:a aac -b:a 24k -ac 1 -movflags +faststart -shortest brb.mp4
  printf '%-20s %6d bytes\n' brb.mp4 "$(wc -c <brb.mp4)"
}

studio
presenter
avatar
logo
slate
starting_soon
brb
