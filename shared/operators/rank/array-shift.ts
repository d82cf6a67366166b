/**
 * Insertion into and removal from the middle of an array, for the hot paths of the Top-N
 * buffers: `splice` allocates an array of the removed elements on every call, which adds up to
 * several allocations per record. For short tails a loop moves the elements without allocating;
 * for long ones `splice`'s native copy is faster.
 */

/** Beyond this many elements to move, `splice`'s native copy beats a loop. */
const SHORT_TAIL = 32;

/**
 * Inserts `value` at `index`: `splice(index, 0, value)` without the array of removed elements
 * `splice` allocates on every call (this runs several times per record), for short tails.
 */
export function insertAt<T>(array: T[], index: number, value: T): void {
  let i = array.length;
  if (i === index) {
    array.push(value);
  } else if (i - index > SHORT_TAIL) {
    array.splice(index, 0, value);
  } else {
    array.push(array[i - 1]!);
    for (i -= 1; i > index; i--) array[i] = array[i - 1]!;
    array[index] = value;
  }
}

/** Removes the element at `index`: `splice(index, 1)` without allocating, for short tails. */
export function removeAt<T>(array: T[], index: number): void {
  const last = array.length - 1;
  if (last - index > SHORT_TAIL) {
    array.splice(index, 1);
    return;
  }
  for (let i = index; i < last; i++) array[i] = array[i + 1]!;
  array.pop();
}
