package brcode_test

import (
	"fmt"

	"github.com/pixsandbox/pixsandbox/simulator/brcode"
)

// A dynamic charge's BR Code ("copia e cola"): the location of its payload,
// the merchant's name and city, and the CRC16 the payer's app checks.
func ExampleNewDynamic() {
	code, err := brcode.NewDynamic("https://pix.example.com/qr/v2/cobv/9d36b84f", "Loja São João", "São Paulo").Encode()
	if err != nil {
		panic(err)
	}
	fmt.Println(code)
	// Output:
	// 00020101021226570014br.gov.bcb.pix2535pix.example.com/qr/v2/cobv/9d36b84f5204000053039865802BR5913Loja Sao Joao6009Sao Paulo62070503***6304489C
}

// Parse reads a BR Code back and checks its CRC16; a code changed by a
// single character is refused.
func ExampleParse() {
	text, _ := brcode.Code{Key: "pagador@example.com", Amount: "10.50", MerchantName: "Fulano", MerchantCity: "Recife", TxID: "PEDIDO42"}.Encode()
	code, err := brcode.Parse(text)
	fmt.Println(code.Key, code.Amount, code.TxID, err)

	tampered := text[:len(text)-5] + "0" + text[len(text)-4:]
	_, err = brcode.Parse(tampered)
	fmt.Println(err != nil)
	// Output:
	// pagador@example.com 10.50 PEDIDO42 <nil>
	// true
}

// CRC16 is CRC-16/CCITT-FALSE, the checksum a BR Code ends with.
func ExampleCRC16() {
	fmt.Printf("%04X\n", brcode.CRC16([]byte("123456789")))
	// Output:
	// 29B1
}
