'use strict';

// A tiny argv parser, after lukeed/mri: `--key=value` and `--flag`.

function toNum(any) {
	return (typeof any !== 'boolean' && Number(any)) || any;
}

module.exports = function parse(args) {
	const out = { _: [] };

	for (let i = 0; i < args.length; i++) {
		const arg = args[i];
		if (arg === '--') {
			out._.push(...args.slice(i + 1));
			break;
		}
		if (!arg.startsWith('--')) {
			out._.push(arg);
			continue;
		}

		const eq = arg.indexOf('=');
		const key = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
		const value = eq === -1 ? true : arg.slice(eq + 1);
		out[key] = toNum(value);
	}

	return out;
};
