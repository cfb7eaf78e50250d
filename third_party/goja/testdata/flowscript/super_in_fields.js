(function () {
const out = [];
const t = (src) => { try { out.push(String(new Function(src)())); } catch (e) { out.push(e.name); } };
t("class A { m() { return 1; } } class B extends A { x = super.m() + 1; } return new B().x");
t("class A { static s() { return 2; } } class B extends A { static t = super.s() * 10; } return B.t");
t("class A { m() { return 1; } } class B extends A { y = () => super.m(); } return new B().y()");
t("class A { get g() { return 'g' + this.k; } } class B extends A { k = 5; x = super.g; } return new B().x");
t("class A { m() { return 'A'; } } class B extends A { m() { return 'B'; } x = super.m() + this.m(); } return new B().x");
t("class A { m() { return 1; } } class B extends A { ['x' + 1] = super.m(); } return new B().x1");
t("class A { m() { return 1; } } class B extends A { #p = super.m() + 2; get p() { return this.#p; } } return new B().p");
t("class A { m() { return 1; } } class B extends A { x = function () { return super.m(); }; } return 'no'");
t("class A {} class B extends A { x = super(); } return 'no'");
t("class A { m() { return 1 } } class B extends A { x = class extends A { y = super.m() * 7 }; } return new (new B().x)().y");
t("class B { x = super.toString === Object.prototype.toString; } return new B().x");
t("class A { m() { return 1 } } class B extends A { x = { m() { return super.hasOwnProperty('m') } }.m(); } return new B().x");
t("class A { m() { return 3 } } class B extends A { x = [1].map(() => super.m()); } return new B().x");
return out.join('\n');
})()
