pub mod req;

#[cfg(test)]
mod tests;
