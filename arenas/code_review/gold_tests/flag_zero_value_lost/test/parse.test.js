'use strict';
const { test } = require('node:test');
const assert = require('node:assert/strict');
const parse = require('../lib/parse');

test('flags and positionals', () => {
	assert.deepEqual(parse(['build', '--watch', '--out=dist']), {
		_: ['build'], watch: true, out: 'dist',
	});
});

test('numeric values become numbers', () => {
	assert.deepEqual(parse(['--port=8080', '--offset=-5', '--name=bob']), {
		_: [], port: 8080, offset: -5, name: 'bob',
	});
});

test('zero is a number too', () => {
	assert.deepEqual(parse(['--count=0', '--empty=']), { _: [], count: 0, empty: '' });
});
