// Package fsize lets a test fail file writes midway, as a full disk does:
// Limit runs a function with the process's file size limit (RLIMIT_FSIZE)
// lowered, so a write past it fails with EFBIG (Go ignores the SIGXFSZ
// that comes with it). Linux only.
package fsize
