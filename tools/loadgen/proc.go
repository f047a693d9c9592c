package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc/PID/stat CPU times on Linux.
const clockTicks = 100

// readRSS returns the resident set size of pid in bytes, or -1.
func readRSS(pid int) int64 {
	if pid <= 0 {
		return -1
	}
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	defer f.Close() //nolint:errcheck // read only
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return -1
			}
			return kb << 10
		}
	}
	return -1
}

// readCPU returns the user+system CPU time of pid in clock ticks, or -1.
func readCPU(pid int) int64 {
	if pid <= 0 {
		return -1
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return -1
	}
	// The command name (field 2) may contain spaces; fields after ")" are
	// fixed: utime and stime are fields 14 and 15.
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return -1
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return -1
	}
	return utime + stime
}

func mib(b int64) string {
	if b < 0 {
		return "?"
	}
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}

func kib(b int64) string {
	if b < 0 {
		return "?"
	}
	return fmt.Sprintf("%.0f KiB", float64(b)/(1<<10))
}

// waitQuiet waits until pid uses under 5 % of one core over a second, or
// for at most limit, and says how long it waited: the bare baseline runs
// on the same cores right after the arcade's window, and the arcade's
// work on the players' leaving (stores, tidying) would be its load too.
func waitQuiet(pid int, limit time.Duration) {
	if pid <= 0 {
		return
	}
	start := time.Now()
	for time.Since(start) < limit {
		from := readCPU(pid)
		time.Sleep(time.Second)
		to := readCPU(pid)
		if from < 0 || to < 0 || to-from < clockTicks/20 {
			break
		}
	}
	fmt.Printf("the arcade (pid %d) was quiet %s after the players left\n", pid, time.Since(start).Round(100*time.Millisecond))
}
