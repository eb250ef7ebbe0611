pub mod eval;
pub mod version;

#[cfg(test)]
mod tests;
