# Cross compilation for 64-bit ARM Linux with Debian's cross compiler
# (g++-aarch64-linux-gnu) and the arm64 multiarch packages of Highway, MPFR, GMP and
# GoogleTest (libhwy-dev:arm64 ...), which install into /usr/lib/aarch64-linux-gnu.
# Test binaries run through qemu-user (CMAKE_CROSSCOMPILING_EMULATOR), so ctest and
# GoogleTest's test discovery work as in a native build. scripts/dev.sh aarch64 uses it.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# The target's C library and loader (libc6-arm64-cross) live under this prefix.
set(SOFTFLOAT_AARCH64_SYSROOT /usr/aarch64-linux-gnu)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L ${SOFTFLOAT_AARCH64_SYSROOT})
# Multiarch: headers in /usr/include (shared by every architecture), libraries and
# CMake/pkg-config files in /usr/lib/aarch64-linux-gnu. Programs (the host's) come
# from the host; libraries and packages only from the target's directories.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
