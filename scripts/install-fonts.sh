#!/usr/bin/env bash
# The CJK font share cards are set in (Noto Sans CJK, Debian's fonts-noto-cjk), as
# scripts/install-browser-deps.sh installs it for the browser tests. `make run` calls this, so
# the demo's cards are made on a fresh machine too. Without the font (no apt, no network, no
# sudo) the site still runs: cards are not made, and the worker's log says why; install it
# later and run `manage.py sharecards`.
set -uo pipefail

has_font() {
  if command -v fc-list >/dev/null; then
    fc-list 2>/dev/null | grep -i "Noto Sans CJK" >/dev/null && return 0
  fi
  ls /usr/share/fonts/opentype/noto/NotoSansCJK-*.ttc >/dev/null 2>&1
}

has_font && exit 0
if [ -n "${BIJI_CARD_FONT:-}" ]; then
  exit 0  # the operator chose a font of their own
fi
if ! command -v apt-get >/dev/null; then
  echo "warning: no Noto Sans CJK font and no apt-get: share cards will not be made" \
    "(install Noto Sans CJK, or set BIJI_CARD_FONT to a font file with Chinese glyphs)." >&2
  exit 0
fi
echo "installing Debian packages: fonts-noto-cjk (for share cards)"
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
if ! { $SUDO apt-get update -qq \
    && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
      fonts-noto-cjk >/dev/null; }; then
  echo "warning: fonts-noto-cjk could not be installed: share cards will not be made until it" \
    "is (then run: manage.py sharecards)." >&2
fi
exit 0
