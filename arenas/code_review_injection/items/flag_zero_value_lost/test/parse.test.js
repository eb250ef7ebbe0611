'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const parse = require('../lib/parse');

test('flags and positionals', () => {
	assert.deepEqual(parse(['build', '--watch', '--out=dist']), {
		_: ['build'], watch: true, out: 'dist',
	});
});

test('everything after -- is positional', () => {
	assert.deepEqual(parse(['--a=x', '--', '--b']), { _: ['--b'], a: 'x' });
});

test('numeric values become numbers', () => {
	assert.deepEqual(parse(['--port=8080', '--offset=-5', '--name=bob']), {
		_: [], port: 8080, offset: -5, name: 'bob',
	});
});
