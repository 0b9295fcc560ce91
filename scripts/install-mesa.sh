#!/usr/bin/env bash
# Installs Mesa 25 lavapipe (software Vulkan) from bookworm-backports, reusing the URI of the
# machine's existing Debian source. Debian 12's own Mesa 22 lavapipe is too old for Dawn and lacks
# shader-f16, so the GPU tests need this one (see shared/DESIGN.md, "Facts about this environment").
set -euo pipefail
src=/etc/apt/sources.list.d/debian.sources
uri=$(awk '/^URIs:/ {print $2; exit}' "$src" 2>/dev/null || true)
[ -n "$uri" ] || uri=http://deb.debian.org/debian
if ! grep -rqs bookworm-backports /etc/apt/sources.list /etc/apt/sources.list.d/; then
  cat > /etc/apt/sources.list.d/backports.sources <<EOT
Types: deb
URIs: $uri
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOT
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq -t bookworm-backports mesa-vulkan-drivers libvulkan1 >/dev/null
echo "mesa: $(dpkg-query -W -f='${Version}' mesa-vulkan-drivers)"
