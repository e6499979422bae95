/** The toolgate version stamped into generated files and reported by `toolgate --version`. */
export const toolgateVersion = "0.1.0";
