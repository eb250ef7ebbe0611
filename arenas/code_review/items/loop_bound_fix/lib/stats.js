// Moving average over a window of `width` samples.
function movingAverage(samples, width) {
  if (width < 1) throw new RangeError("width must be at least 1");
  const out = [];
  let sum = 0;
  for (let i = 0; i < samples.length; i++) {
    sum += samples[i];
    if (i >= width) sum -= samples[i - width];
    if (i >= width - 1) out.push(sum / width);
  }
  return out;
}

module.exports = { movingAverage };
