package cli

import "golang.org/x/sys/unix"

// ioctlReadTermios reads a terminal's settings: it fails on anything else.
const ioctlReadTermios = unix.TCGETS
