import {test} from 'node:test';
import assert from 'node:assert/strict';
import prettyBytes from '../src/prettyBytes';

test('decimal units', () => {
	assert.equal(prettyBytes(0), '0 B');
	assert.equal(prettyBytes(999), '999 B');
	assert.equal(prettyBytes(1500), '1.5 kB');
	assert.equal(prettyBytes(-1500), '-1.5 kB');
	assert.equal(prettyBytes(1e16), '10 PB');
});

test('binary units', () => {
	assert.equal(prettyBytes(1024, {binary: true}), '1 KiB');
	assert.equal(prettyBytes(1e16, {binary: true}), '8.88 PiB');
});

test('binary units keep every integer digit', () => {
	assert.equal(prettyBytes(1000, {binary: true}), '1000 B');
	assert.equal(prettyBytes(1000), '1 kB');
});
