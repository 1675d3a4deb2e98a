package brcode

// CRC16 returns the CRC-16/CCITT-FALSE of b (poly 0x1021, init 0xFFFF, no reflection,
// no final xor), the BR Code checksum. The check value of "123456789" is 0x29B1.
// It reads a byte at a time from crcTable, which holds the eight shifts of
// each byte (crc16Bitwise in the tests is the definition it is checked against).
func CRC16(b []byte) uint16 {
	crc := uint16(0xFFFF)
	for _, c := range b {
		crc = crc<<8 ^ crcTable[byte(crc>>8)^c]
	}
	return crc
}

// crcTable[i] is the CRC register after shifting i, as its top byte, through
// the polynomial eight times.
var crcTable = func() (t [256]uint16) {
	for i := range t {
		crc := uint16(i) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
		t[i] = crc
	}
	return t
}()
