//! Format a `u32` in decimal without allocating.

// The string of all two-digit numbers 00..99 is used as a lookup table.
static DECIMAL_PAIRS: [u8; 200] = *b"\
    0001020304050607080910111213141516171819\
    2021222324252627282930313233343536373839\
    4041424344454647484950515253545556575859\
    6061626364656667686970717273747576777879\
    8081828384858687888990919293949596979899";

pub struct Buffer {
    bytes: [u8; 10],
}

impl Buffer {
    pub fn new() -> Buffer {
        Buffer { bytes: [0; 10] }
    }

    /// Writes `n` in decimal into the buffer and returns it as text.
    pub fn format(&mut self, n: u32) -> &str {
        let buf = &mut self.bytes;
        let mut offset = buf.len();
        let mut remain = n;

        // Format per four digits from the lookup table.
        while remain > 999 {
            offset -= 4;
            let quad = remain % 1_00_00;
            remain /= 1_00_00;
            let pair1 = (quad / 100) as usize;
            let pair2 = (quad % 100) as usize;
            // SAFETY: pair1 and pair2 are below 100, so every index is below 200.
            unsafe {
                buf[offset] = *DECIMAL_PAIRS.get_unchecked(pair1 * 2);
                buf[offset + 1] = *DECIMAL_PAIRS.get_unchecked(pair1 * 2 + 1);
                buf[offset + 2] = *DECIMAL_PAIRS.get_unchecked(pair2 * 2);
                buf[offset + 3] = *DECIMAL_PAIRS.get_unchecked(pair2 * 2 + 1);
            }
        }

        // Format per two digits from the lookup table.
        if remain > 9 {
            offset -= 2;
            let pair = (remain % 100) as usize;
            remain /= 100;
            // SAFETY: pair is below 100, so both indices are below 200.
            unsafe {
                buf[offset] = *DECIMAL_PAIRS.get_unchecked(pair * 2);
                buf[offset + 1] = *DECIMAL_PAIRS.get_unchecked(pair * 2 + 1);
            }
        }

        // Format the last remaining digit, if any.
        if remain != 0 || n == 0 {
            offset -= 1;
            let last = (remain & 15) as usize;
            // SAFETY: last is at most 15, so last * 2 + 1 is at most 31.
            buf[offset] = unsafe { *DECIMAL_PAIRS.get_unchecked(last * 2 + 1) };
        }

        std::str::from_utf8(&buf[offset..]).expect("digits are ASCII")
    }
}

#[cfg(test)]
mod tests;
