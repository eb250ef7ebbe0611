// Human-readable byte counts, after sindresorhus/pretty-bytes.
const BYTE_UNITS = ['B', 'kB', 'MB', 'GB', 'TB', 'PB', 'EB', 'ZB', 'YB'];
const BIBYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB', 'ZiB', 'YiB'];

export type Options = {
	/** Use powers of 1024 (KiB, MiB, ...) instead of powers of 1000. */
	binary?: boolean;
};

export default function prettyBytes(number: number, options: Options = {}): string {
	if (!Number.isFinite(number)) {
		throw new TypeError(`Expected a finite number, got ${typeof number}: ${number}`);
	}

	const units = options.binary ? BIBYTE_UNITS : BYTE_UNITS;
	const prefix = number < 0 ? '-' : '';
	number = Math.abs(number);

	if (number < 1) {
		return `${prefix}${number} ${units[0]}`;
	}

	const exponent = Math.min(
		Math.floor(options.binary ? Math.log(number) / Math.log(1024) : Math.log10(number) / 3),
		units.length - 1,
	);
	const scaled = number / (options.binary ? 1024 : 1000) ** exponent;
	// toPrecision(3) turns 1001 into '1.00e+3': keep every digit of the integer part.
	const precision = Math.max(3, Math.trunc(scaled).toString().length);
	const digits = scaled.toPrecision(precision);

	return `${prefix}${Number(digits)} ${units[exponent]}`;
}
