import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isEnabled } from '../src/colors.mjs';

test('a TTY enables colours', () => {
	assert.ok(isEnabled({}, true));
	assert.ok(!isEnabled({}, false));
});

test('FORCE_COLOR enables colours without a TTY, unless it is 0', () => {
	assert.ok(isEnabled({ FORCE_COLOR: '1' }, false));
	assert.ok(!isEnabled({ FORCE_COLOR: '0' }, false));
});

test('NODE_DISABLE_COLORS and TERM=dumb disable colours', () => {
	assert.ok(!isEnabled({ NODE_DISABLE_COLORS: '1' }, true));
	assert.ok(!isEnabled({ TERM: 'dumb' }, true));
});

test('NO_COLOR disables colours, whatever its value', () => {
	assert.ok(!isEnabled({ NO_COLOR: '1' }, true));
	assert.ok(!isEnabled({ NO_COLOR: '' }, true));
	assert.ok(!isEnabled({ NO_COLOR: '', FORCE_COLOR: '1' }, false));
});
