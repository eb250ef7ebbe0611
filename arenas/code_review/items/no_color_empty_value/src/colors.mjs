// Colour support for terminal output, after lukeed/kleur's colors.mjs.

export function isEnabled(env, isTTY) {
	const { FORCE_COLOR, NODE_DISABLE_COLORS, NO_COLOR, TERM } = env;
	return !NODE_DISABLE_COLORS && NO_COLOR == null && TERM !== 'dumb' && (
		FORCE_COLOR != null && FORCE_COLOR !== '0' || isTTY
	);
}

export const $ = {
	enabled: typeof process === 'undefined'
		|| isEnabled(process.env, process.stdout && process.stdout.isTTY),
};

function init(open, close) {
	const rgx = new RegExp(`\\x1b\\[${close}m`, 'g');
	const beg = `\x1b[${open}m`, end = `\x1b[${close}m`;

	return function (txt) {
		if (!$.enabled || txt == null) return txt;
		const str = '' + txt;
		return beg + (str.includes(end) ? str.replace(rgx, end + beg) : str) + end;
	};
}

export const bold = init(1, 22);
export const red = init(31, 39);
export const green = init(32, 39);
