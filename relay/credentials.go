package relay

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Credentials are the relay's own, as its Secret holds them today.
type Credentials struct {
	Username string
	Password string
	Keytab   []byte
}

// fingerprint tells two readings apart without keeping the secret twice.
func (c Credentials) fingerprint() [32]byte {
	h := sha256.New()
	for _, part := range [][]byte{[]byte(c.Username), []byte(c.Password), c.Keytab} {
		fmt.Fprintf(h, "%d:", len(part))
		h.Write(part)
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum
}

// The files of a credentials directory: a Secret's keys as the kubelet mounts them.
const (
	fileUsername = "username"
	filePassword = "password"
	fileKeytab   = "keytab"
)

// readCredentials reads dir as it is now: the kubelet swaps a Secret volume's
// files at once when the Secret changes, so every reading is whole.
func readCredentials(dir string) (Credentials, error) {
	var c Credentials
	read := func(name string) ([]byte, error) {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			// the path names a file, never its content
			return nil, fmt.Errorf("credentials: reading %s: %w", name, errors.Unwrap(err))
		}
		return b, nil
	}
	user, err := read(fileUsername)
	if err != nil {
		return c, err
	}
	password, err := read(filePassword)
	if err != nil {
		return c, err
	}
	if c.Keytab, err = read(fileKeytab); err != nil {
		return c, err
	}
	// a Secret written with echo ends in a newline that is not part of the value
	c.Username = strings.TrimRight(string(user), "\r\n")
	c.Password = strings.TrimRight(string(password), "\r\n")
	if c.Username == "" {
		return c, fmt.Errorf("credentials: %s is missing or empty in %s", fileUsername, dir)
	}
	if c.Password == "" && len(c.Keytab) == 0 {
		return c, fmt.Errorf("credentials: neither %s nor %s is in %s", filePassword, fileKeytab, dir)
	}
	return c, nil
}
