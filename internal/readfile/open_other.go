//go:build !unix

package readfile

// nonBlock: there are no FIFOs to wait on here.
const nonBlock = 0
