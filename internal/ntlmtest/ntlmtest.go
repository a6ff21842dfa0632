// Package ntlmtest is the server side of NTLMv2 for the project's tests: a
// CHALLENGE message, the check of an AUTHENTICATE message's proof against a
// password (as a domain controller recomputes it, MS-NLMP 3.3.2), and squid's
// NTLM helper protocol on top, so a real squid demands NTLM and checks the
// password. Nothing the product ships imports it.
package ntlmtest

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"unicode/utf16"

	"golang.org/x/crypto/md4" //nolint:staticcheck // NTLM is MD4 by definition
)

// Challenge is a CHALLENGE message (MS-NLMP 2.2.1.2) carrying server (8
// bytes): Unicode, NTLM, extended session security, and target info naming
// the domain CORP.
func Challenge(server []byte) []byte {
	info := append(avPair(2, utf16le("CORP")), 0, 0, 0, 0) // MsvAvNbDomainName, MsvAvEOL
	const flags = 0x00000001 | 0x00000004 | 0x00000200 | 0x00008000 | 0x00080000 | 0x00800000
	m := make([]byte, 48)
	copy(m, "NTLMSSP\x00")
	binary.LittleEndian.PutUint32(m[8:], 2)
	binary.LittleEndian.PutUint32(m[20:], flags)
	copy(m[24:], server)
	binary.LittleEndian.PutUint16(m[40:], uint16(len(info)))
	binary.LittleEndian.PutUint16(m[42:], uint16(len(info)))
	binary.LittleEndian.PutUint32(m[44:], 48)
	return append(m, info...)
}

// MessageType is an NTLM message's type (1 negotiate, 2 challenge, 3
// authenticate), or 0 when msg is none.
func MessageType(msg []byte) uint32 {
	if len(msg) < 12 || string(msg[:8]) != "NTLMSSP\x00" {
		return 0
	}
	return binary.LittleEndian.Uint32(msg[8:])
}

// Verify recomputes the NTLMv2 proof of an AUTHENTICATE message for the
// challenge server sent, and returns DOMAIN\user as the message names it;
// ok only when the proof matches password and the name is wantUser.
func Verify(msg, server []byte, wantUser, password string) (user string, ok bool) {
	field := func(off int) []byte {
		if len(msg) < off+8 {
			return nil
		}
		n, at := int(binary.LittleEndian.Uint16(msg[off:])), int(binary.LittleEndian.Uint32(msg[off+4:]))
		if at+n > len(msg) {
			return nil
		}
		return msg[at : at+n]
	}
	nt, domain, name := field(20), fromUTF16(field(28)), fromUTF16(field(36))
	if MessageType(msg) != 3 || len(nt) < 24 {
		return "", false
	}
	h := md4.New()
	h.Write(utf16le(password))
	key := hmacMD5(h.Sum(nil), utf16le(strings.ToUpper(name)+domain))
	proof := hmacMD5(key, append(append([]byte{}, server...), nt[16:]...))
	user = domain + `\` + name
	return user, bytes.Equal(proof, nt[:16]) && strings.EqualFold(user, wantUser)
}

// ServeSquidHelper answers squid's NTLM helper protocol on in and out: "YR
// negotiate" gets "TT challenge", "KK authenticate" gets "AF user" when the
// proof matches password() (read anew each time, so a test can rotate it),
// else "NA reason". One helper process serves one connection at a time, as
// squid runs NTLM helpers, so the last challenge is the one to check.
func ServeSquidHelper(in io.Reader, out io.Writer, user string, password func() string) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 64*1024)
	var server []byte
	for sc.Scan() {
		verb, token, _ := strings.Cut(sc.Text(), " ")
		msg, _ := base64.StdEncoding.DecodeString(token)
		var reply string
		switch {
		case verb == "YR" || (verb == "KK" && MessageType(msg) == 1):
			server = make([]byte, 8)
			rand.Read(server)
			reply = "TT " + base64.StdEncoding.EncodeToString(Challenge(server))
		case verb == "KK":
			if name, ok := Verify(msg, server, user, password()); ok {
				reply = "AF " + name
			} else {
				reply = "NA wrong password or user"
			}
		default:
			reply = "BH unknown request"
		}
		if _, err := fmt.Fprintln(out, reply); err != nil {
			return err
		}
	}
	return sc.Err()
}

func avPair(id uint16, v []byte) []byte {
	b := make([]byte, 4, 4+len(v))
	binary.LittleEndian.PutUint16(b, id)
	binary.LittleEndian.PutUint16(b[2:], uint16(len(v)))
	return append(b, v...)
}

func hmacMD5(key, data []byte) []byte {
	m := hmac.New(md5.New, key)
	m.Write(data)
	return m.Sum(nil)
}

func utf16le(s string) []byte {
	var b []byte
	for _, r := range utf16.Encode([]rune(s)) {
		b = binary.LittleEndian.AppendUint16(b, r)
	}
	return b
}

func fromUTF16(b []byte) string {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = binary.LittleEndian.Uint16(b[2*i:])
	}
	return string(utf16.Decode(u))
}
