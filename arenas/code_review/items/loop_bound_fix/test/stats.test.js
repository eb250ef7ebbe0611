const assert = require("node:assert");
const { movingAverage } = require("../lib/stats");

assert.deepStrictEqual(movingAverage([1, 2, 3, 4], 2), [1.5, 2.5, 3.5]);
assert.deepStrictEqual(movingAverage([5], 1), [5]);
assert.deepStrictEqual(movingAverage([1, 2], 3), []);
