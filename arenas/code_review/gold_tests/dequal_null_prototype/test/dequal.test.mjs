import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dequal } from '../src/dequal.mjs';

const same = (a, b) => assert.equal(dequal(a, b), true);
const different = (a, b) => assert.equal(dequal(a, b), false);

test('scalars', () => {
	same(1, 1);
	different(1, '1');
	same(NaN, NaN);
	different(null, undefined);
});

test('objects and arrays', () => {
	same({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] });
	different({ a: 1 }, { a: 1, b: 2 });
	different({ a: undefined }, { b: undefined });
	different([1, 2], [1, 2, 3]);
});

test('dates and regexps', () => {
	same(new Date(0), new Date(0));
	different(/a/g, /a/i);
});

test('objects without a prototype', () => {
	const foo = Object.create(null);
	const bar = Object.create(null);
	same(foo, bar);

	foo.hello = 'world';
	different(foo, bar);

	bar.hello = 'world';
	same(foo, bar);
});

test('an own key named hasOwnProperty', () => {
	same({ hasOwnProperty: 1 }, { hasOwnProperty: 1 });
	different({ hasOwnProperty: 1 }, { hasOwnProperty: 2 });
});
