export async function findUser(db, id) {
  const row = await db.get("users", id);
  return row ? { id: row.id, email: row.email } : null;
}

export async function normalizedEmail(db, id) {
  const user = await findUser(db, id);
  return user.email.trim().toLowerCase();
}
