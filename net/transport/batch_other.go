//go:build !linux

package transport

func newBatchIO(s *UDPSocket) batchIO { return newXnetBatch(s) }
