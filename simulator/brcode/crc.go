package brcode

// CRC16 returns the CRC-16/CCITT-FALSE of b (poly 0x1021, init 0xFFFF, no reflection,
// no final xor), the BR Code checksum. The check value of "123456789" is 0x29B1.
func CRC16(b []byte) uint16 {
	crc := uint16(0xFFFF)
	for _, c := range b {
		crc ^= uint16(c) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}
