package config

import (
	"bufio"
	"os"
	"strings"
)

// CountSettings returns how many non-comment lines each file holds.
func CountSettings(paths []string) (map[string]int, error) {
	counts := make(map[string]int)
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		scanner := bufio.NewScanner(f)
		for scanner.Scan() {
			line := strings.TrimSpace(scanner.Text())
			if line != "" && !strings.HasPrefix(line, "#") {
				counts[path]++
			}
		}
		if err := scanner.Err(); err != nil {
			return nil, err
		}
	}
	return counts, nil
}
