import { randomBytes } from 'node:crypto'
import { hash, verify } from '@node-rs/argon2'

// OWASP's argon2id baseline (19 MiB, 2 passes, 1 lane).
// algorithm 2 is Argon2id (the package exports it as an ambient const enum).
const OPTIONS = { algorithm: 2 as const, memoryCost: 19456, timeCost: 2, parallelism: 1 }




export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS)
}

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password)
  } catch {
    return false
  }
}

// Compared against when the user does not exist, so the answer takes as long as for a real user.
let dummyHash: Promise<string> | undefined
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword('not-a-real-password')
  return dummyHash
}

/** A password for the administrator of a new database, or one reset without a password given. */
export function generatePassword(): string {
  // 16 characters from an alphabet without look-alikes, plus a digit and a sign to meet any rule.
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789'
  const bytes = randomBytes(14)
  return `${Array.from(bytes, (b) => alphabet[b % alphabet.length]).join('')}7!`
}
