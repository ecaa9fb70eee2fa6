/** Small async tools for tests: a promise the test resolves by hand, and the error a promise rejects with. */

export interface Deferred<T = void> {
  promise: Promise<T>;
  resolve(value: T): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** The error `promise` rejects with; fails the test when it resolves instead. */
export async function rejection(promise: Promise<unknown>, what = 'the call'): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error(`expected ${what} to fail, but it succeeded`);
}
